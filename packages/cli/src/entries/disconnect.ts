/** The bundle of `svc disconnect` (dist/cmd/disconnect.mjs): this command and what it needs, nothing else. */
import { runProgram } from '../cli.js';
import { disconnectCommand } from '../commands/disconnect.js';

export function run(argv: readonly string[]): Promise<number> {
  return runProgram(argv, [disconnectCommand()]);
}
