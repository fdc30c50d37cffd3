/**
 * The root program's own texts, shared by commander's program (program.ts) and the help the
 * entry prints without commander (catalog.ts), so the two cannot drift apart.
 */

export const PROGRAM_DESCRIPTION = 'The command-line tool of the runtime: scaffold projects, connect MCP clients, operate deployments, manage tokens and knowledge, read traces';

/** The root options, as the root help lists them. */
export const ROOT_OPTIONS: readonly [string, string][] = [
  ['-V, --version', 'print the version'],
  ['--json', 'print exactly one JSON document on stdout'],
  ['-h, --help', 'display help for command'],
];
