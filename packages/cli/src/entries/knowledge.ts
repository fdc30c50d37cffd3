/** The bundle of `svc knowledge` (dist/cmd/knowledge.mjs): this command and what it needs, nothing else. */
import { runProgram } from '../cli.js';
import { knowledgeCommand } from '../commands/knowledge.js';

export function run(argv: readonly string[]): Promise<number> {
  return runProgram(argv, [knowledgeCommand()]);
}
