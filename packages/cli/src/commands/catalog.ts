/**
 * The command catalog, without the commands: names, the one-line summaries and the help terms
 * the root help lists. The entry point reads only this, so `svc --help` loads no command; each
 * command module takes its description from here so the two never drift (a test compares the
 * root help with commander's rendering of the full program).
 */
export interface CatalogEntry {
  name: string;
  /** How commander lists the command: name, `[options]`, arguments. */
  term: string;
  summary: string;
}

export const PROGRAM_DESCRIPTION = 'The command-line tool of the runtime: scaffold projects, connect MCP clients, operate deployments, manage tokens and knowledge';

export const CATALOG: readonly CatalogEntry[] = [
  { name: 'create', term: 'create [options] [name]', summary: 'Create a new runtime project from a starter template' },
  { name: 'connect', term: 'connect [options]', summary: 'Connect local coding-agent clients to the runtime over MCP' },
  { name: 'disconnect', term: 'disconnect [options]', summary: 'Remove the runtime from local MCP clients (offline unless --revoke)' },
  { name: 'up', term: 'up [options]', summary: 'Build and start the project with docker compose (up -d --build)' },
  { name: 'down', term: 'down [options]', summary: 'Stop the project with docker compose (down)' },
  { name: 'restart', term: 'restart [options]', summary: 'Stop, pause 2 seconds, and start the project again' },
  { name: 'status', term: 'status [options]', summary: 'Show the runtime and which local clients are connected to it' },
  { name: 'tokens', term: 'tokens [options]', summary: 'Create, list and revoke service-account tokens' },
  { name: 'knowledge', term: 'knowledge [options]', summary: 'Operate knowledge bases: re-embed one with the configured embedder' },
];

export function summaryOf(name: string): string {
  return CATALOG.find((c) => c.name === name)?.summary ?? '';
}

/** The root options, as the root help lists them. */
export const ROOT_OPTIONS: readonly [string, string][] = [
  ['-V, --version', 'print the version'],
  ['--json', 'print exactly one JSON document on stdout'],
  ['-h, --help', 'display help for command'],
];

/**
 * Wraps at whitespace the way commander's help does (widths under 40 are not wrapped), so the
 * root help printed without commander is the same text commander prints.
 */
function boxWrap(text: string, width: number): string {
  if (width < 40) return text;
  const chunks = text.match(/\s*\S+/g);
  if (!chunks) return '';
  const lines: string[] = [];
  let line = chunks.shift() ?? '';
  for (const chunk of chunks) {
    if (line.length + chunk.length <= width) line += chunk;
    else {
      lines.push(line);
      line = chunk.trimStart();
    }
  }
  lines.push(line);
  return lines.join('\n');
}

/** `svc --help`: what commander prints for the full program, at `width` columns. */
export function rootHelp(width: number): string {
  const terms = [...ROOT_OPTIONS.map(([t]) => t), ...CATALOG.map((c) => c.term)];
  const termWidth = Math.max(...terms.map((t) => t.length));
  const item = (term: string, description: string): string => {
    const remaining = width - termWidth - 4;
    const text = remaining < 40 ? description : boxWrap(description, remaining).replace(/\n/g, `\n${' '.repeat(termWidth + 2)}`);
    return `  ${term.padEnd(termWidth)}  ${text.replace(/\n/g, '\n  ')}`;
  };
  return [
    'Usage: svc [options] [command]',
    '',
    boxWrap(PROGRAM_DESCRIPTION, width),
    '',
    'Options:',
    ...ROOT_OPTIONS.map(([t, d]) => item(t, d)),
    '',
    'Commands:',
    ...CATALOG.map((c) => item(c.term, c.summary)),
    '',
  ].join('\n');
}
