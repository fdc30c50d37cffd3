/** The bundle of `svc tokens` (dist/cmd/tokens.mjs): this command and what it needs, nothing else. */
import { runProgram } from '../cli.js';
import { tokensCommand } from '../commands/tokens.js';

export function run(argv: readonly string[]): Promise<number> {
  return runProgram(argv, [tokensCommand()]);
}
