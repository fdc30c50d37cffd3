/**
 * Removing one client's entries for `svc disconnect`: every entry that points at the target
 * runtime (or the entry of that name, with --server-name), in every scope the client has.
 */
import type { ClientAdapter, ClientEnv } from '../../clients/registry.js';
import { matchesTargets } from '../../clients/select.js';
import { LEGACY_SERVER_NAME } from '../../clients/server-name.js';
import { baseUrlOfEntry } from '../../discovery/discover-all.js';
import type { RuntimeInfo } from '../../discovery/os-info.js';
import { errorText } from '../../errors.js';
import type { Row } from './report.js';

/**
 * `serverName` removes that entry wherever it points (plus the same runtime's legacy entry);
 * without it, every entry whose URL is one of `targets` goes. A failure is the row's, not the run's.
 */
export function removeEntries(adapter: ClientAdapter, ce: ClientEnv, serverName: string | undefined, targets: readonly string[], info: RuntimeInfo | null): Row {
  const row: Row = { client: adapter.id, status: 'not-found', error: null, display: adapter.display, hadToken: false };
  try {
    const entries = adapter.listEntries(ce);
    // Precedence may hide our entry behind a same-named foreign one, so every name is tried
    // and the per-scope URL check decides.
    const names = serverName !== undefined ? [serverName] : [...entries.keys()];
    const matcher = serverName !== undefined ? undefined : (url: string) => matchesTargets(url, targets);
    const removed: string[] = [];
    const locations: string[] = [];
    const removedUrls: string[] = [];
    const take = (name: string, result: { removed: boolean; location: string | null }): void => {
      if (!result.removed) return;
      removed.push(name);
      if (result.location) for (const loc of result.location.split(', ')) if (!locations.includes(loc)) locations.push(loc);
      const entry = entries.get(name);
      if (entry?.token !== undefined) row.hadToken = true;
      if (entry) removedUrls.push(entry.url);
    };
    for (const name of names) take(name, adapter.remove(name, ce, matcher));
    // By name, the legacy entry of the same runtime goes too: the runtime's address if it
    // answered, else the address the named entry had.
    if (serverName !== undefined && serverName !== LEGACY_SERVER_NAME) {
      const sameRuntime = info ? [info.url] : removedUrls.map((url) => baseUrlOfEntry(url) ?? url);
      if (sameRuntime.length > 0) take(LEGACY_SERVER_NAME, adapter.remove(LEGACY_SERVER_NAME, ce, (url) => matchesTargets(url, sameRuntime)));
    }
    if (removed.length > 0) Object.assign(row, { status: 'removed', removed, location: locations.join(', ') });
  } catch (error) {
    Object.assign(row, { status: 'failed', error: errorText(error) });
  }
  return row;
}
