/**
 * Discovery for interactive connect/disconnect: every candidate is probed (the env file, the
 * default ports, and the runtimes existing client entries point at), and the user picks when
 * more than one answers. Non-interactive runs, --url and RUNTIME_URL keep single-target
 * discovery, so automation is never silently retargeted at another live runtime.
 */
import { CLIENTS, type ClientEnv } from '../clients/registry.js';
import type { Context } from '../context.js';
import { askSelect } from '../output/prompt.js';
import { dedupKey, isLoopbackUrl } from '../util/loopback.js';
import { candidates, sourceNote, URL_ENV, type Candidate } from './candidates.js';
import { discover } from './discover.js';
import type { RuntimeInfo } from './os-info.js';
import { probeCandidate } from './probe.js';

/** `https://host:8443/team1/mcp` -> `https://host:8443/team1`; undefined when not an MCP URL. */
export function baseUrlOfEntry(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.hostname === '') return undefined;
  const path = u.pathname.replace(/\/+$/, '');
  if (!path.endsWith('/mcp')) return undefined;
  return `${u.protocol}//${u.host}${path.slice(0, -'/mcp'.length)}`;
}

/** Runtimes the local clients are configured for, labelled with the clients that use them. */
export function clientConfigCandidates(e: ClientEnv): Candidate[] {
  const byBase = new Map<string, string[]>();
  for (const client of CLIENTS) {
    let entries;
    try {
      entries = client.listEntries(e);
    } catch {
      continue;
    }
    for (const entry of entries.values()) {
      const base = baseUrlOfEntry(entry.url);
      if (!base) continue;
      const names = byBase.get(base) ?? [];
      if (!names.includes(client.display)) names.push(client.display);
      byBase.set(base, names);
    }
  }
  return [...byBase].map(([url, names]) => ({ url, source: 'client-config', sourceFile: names.join(', ') }));
}

export async function discoverForClients(ctx: Context, url: string | undefined, e: ClientEnv, verb: 'connect' | 'disconnect'): Promise<RuntimeInfo> {
  const single = (): Promise<RuntimeInfo> => discover({ url, env: ctx.env, cwd: ctx.cwd });
  if (!ctx.interactive || url !== undefined || (ctx.env[URL_ENV] ?? '').trim() !== '') return single();
  const seen = new Set<string>();
  const all = [...candidates(undefined, ctx.env, ctx.cwd), ...clientConfigCandidates(e)].filter((c) => {
    const key = dedupKey(c.url);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  // An unusable candidate (say an unexpanded ${PORT}) just does not answer here.
  const found = (await Promise.all(all.map((c) => probeCandidate(c, ctx.env).catch(() => undefined)))).filter((info): info is RuntimeInfo => info !== undefined);
  // None: single-target discovery produces the usual error with its hint.
  if (found.length === 0) return single();
  const first = found[0];
  if (found.length === 1 && first) return first;
  const width = Math.max(...found.map((info) => info.url.length));
  const options = found.map((info, i) => ({
    value: String(i),
    label: `${info.url.padEnd(width)}  ${isLoopbackUrl(info.url) ? 'local ' : 'remote'}${info.name ? ` "${info.name}"` : ''}${sourceNote({ source: info.url_source, sourceFile: info.url_source_file })}`,
  }));
  const question = verb === 'connect' ? 'Found multiple running runtimes. Which one do you want to connect?' : 'Found multiple running runtimes. Which one do you want to disconnect?';
  const picked = await askSelect(question, options, '0');
  return found[Number(picked)] ?? single();
}
