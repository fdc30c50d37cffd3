/**
 * The command catalog: the one list of commands. A line names a command, how the root help
 * lists it, its one-line summary, and the folder under commands/ that implements it (`load`).
 * Everything else follows from this list: the entry point routes by it, the build makes one
 * bundle per folder it names (build.mjs), and the full program is its commands (all.ts).
 *
 * The entry point imports this module, so it must stay small and load nothing: `load` is a
 * dynamic import that the build points at the folder's own bundle, dist/cmd/<folder>.mjs. The
 * command folders cannot import it back (that would close a cycle through `load`), so the root
 * program takes the summaries from whoever runs it (program.ts).
 */
import type { CommandModule, Summary } from './program.js';
import { PROGRAM_DESCRIPTION, ROOT_OPTIONS } from './root.js';

export interface CatalogEntry extends Summary {
  /** How commander lists the command: name, `[options]`, arguments. */
  term: string;
  /** The command's folder: commands/<folder>/command.ts, bundled as dist/cmd/<folder>.mjs. */
  load(): Promise<CommandModule>;
}

export const CATALOG: readonly CatalogEntry[] = [
  { name: 'create', term: 'create [options] [name]', summary: 'Create a new runtime project from a starter template', load: () => import('./create/command.js') },
  { name: 'connect', term: 'connect [options]', summary: 'Connect local coding-agent clients to the runtime over MCP', load: () => import('./connect/command.js') },
  { name: 'disconnect', term: 'disconnect [options]', summary: 'Remove the runtime from local MCP clients (offline unless --revoke)', load: () => import('./disconnect/command.js') },
  { name: 'up', term: 'up [options]', summary: 'Build and start the project with docker compose (up -d --build)', load: () => import('./lifecycle/command.js') },
  { name: 'down', term: 'down [options]', summary: 'Stop the project with docker compose (down)', load: () => import('./lifecycle/command.js') },
  { name: 'restart', term: 'restart [options]', summary: 'Stop, pause 2 seconds, and start the project again', load: () => import('./lifecycle/command.js') },
  { name: 'status', term: 'status [options]', summary: 'Show the runtime and which local clients are connected to it', load: () => import('./status/command.js') },
  { name: 'tokens', term: 'tokens [options]', summary: 'Create, list and revoke service-account tokens', load: () => import('./tokens/command.js') },
  { name: 'knowledge', term: 'knowledge [options]', summary: 'Operate knowledge bases: re-embed one with the configured embedder', load: () => import('./knowledge/command.js') },
  { name: 'schedules', term: 'schedules [options]', summary: 'List, create and delete schedules (an agent, team or workflow run on a cron expression)', load: () => import('./schedules/command.js') },
  { name: 'usage', term: 'usage [options]', summary: 'Show your consumption against your budgets (runs, tokens, cost)', load: () => import('./usage/command.js') },
  { name: 'whoami', term: 'whoami [options]', summary: 'Show who the runtime takes your credential to be: user, tenant and scopes', load: () => import('./whoami/command.js') },
  { name: 'traces', term: 'traces [options] [run_id]', summary: "List runs, or print one run's span tree with timings and tokens", load: () => import('./traces/command.js') },
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
