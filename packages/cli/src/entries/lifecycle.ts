/** The bundle of `svc up`, `svc down` and `svc restart` (dist/cmd/lifecycle.mjs). */
import { runProgram } from '../cli.js';
import { downCommandDef, restartCommandDef, upCommandDef } from '../commands/lifecycle.js';

export function run(argv: readonly string[]): Promise<number> {
  return runProgram(argv, [upCommandDef(), downCommandDef(), restartCommandDef()]);
}
