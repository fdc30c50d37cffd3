/**
 * What bare `svc` prints: the command catalog, grouped by what a user is trying to do. The entry
 * point shows it without commander; the groups are written for people, so a new command gets a
 * row here only when it belongs on this first screen.
 */
import { colourEnabled, makeStyle, type Style } from '../../output/style.js';

const GROUPS: { title: string; rows: [string, string][] }[] = [
  {
    title: 'Get started',
    rows: [
      ['svc create', 'Create a new runtime project from a template'],
      ['svc connect', 'Connect your AI apps to your runtime using MCP'],
      ['svc disconnect', 'Disconnect your AI apps from your runtime'],
    ],
  },
  {
    title: 'Operate',
    rows: [
      ['svc up / down / restart', 'Run your runtime with docker compose'],
      ['svc status', 'Show the runtime and which clients are connected'],
      ['svc knowledge reindex', 'Re-embed a knowledge base with the configured embedder'],
      ['svc knowledge eval <folder>', 'Measure retrieval quality on a BEIR folder; --min-ndcg gates CI'],
    ],
  },
  { title: 'Tokens', rows: [['svc tokens', 'Create, list and revoke service-account tokens']] },
];

export function homeScreen(version: string, s: Style): string {
  const width = Math.max(...GROUPS.flatMap((g) => g.rows.map(([cmd]) => cmd.length)));
  const lines = ['', `${s.bold('svc')}: the command-line tool of the runtime, for humans and coding agents`, ''];
  for (const group of GROUPS) {
    lines.push(s.bold(group.title));
    for (const [cmd, text] of group.rows) lines.push(`  ${s.cyan(cmd.padEnd(width))}  ${text}`);
    lines.push('');
  }
  lines.push(`Run svc COMMAND --help  for details · v${version}`, '');
  return lines.join('\n');
}

/** Bare `svc`: the home screen on stdout, coloured by the usual rules. */
export function showHome(version: string): void {
  process.stdout.write(homeScreen(version, makeStyle(colourEnabled(process.stdout, process.env))));
}
