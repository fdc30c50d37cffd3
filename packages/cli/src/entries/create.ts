/** The bundle of `svc create` (dist/cmd/create.mjs): this command and what it needs, nothing else. */
import { runProgram } from '../cli.js';
import { createCommand } from '../commands/create.js';

export function run(argv: readonly string[]): Promise<number> {
  return runProgram(argv, [createCommand()]);
}
