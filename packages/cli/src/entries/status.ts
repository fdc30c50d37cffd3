/** The bundle of `svc status` (dist/cmd/status.mjs): this command and what it needs, nothing else. */
import { runProgram } from '../cli.js';
import { statusCommand } from '../commands/status.js';

export function run(argv: readonly string[]): Promise<number> {
  return runProgram(argv, [statusCommand()]);
}
