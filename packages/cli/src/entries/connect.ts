/** The bundle of `svc connect` (dist/cmd/connect.mjs): this command and what it needs, nothing else. */
import { runProgram } from '../cli.js';
import { connectCommand } from '../commands/connect.js';

export function run(argv: readonly string[]): Promise<number> {
  return runProgram(argv, [connectCommand()]);
}
