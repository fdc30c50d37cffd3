/**
 * What `svc disconnect` reports: one row per client or chat app and one per revocation, as the
 * --json document's `results` and `revocations` and as the human summary.
 */
import type { Context } from '../../context.js';
import type { RuntimeInfo } from '../../discovery/os-info.js';
import { shortenHome } from '../../output/home-path.js';
import type { JsonValue } from '../../util/json.js';
import type { Revocation } from './revoke.js';

export interface Row {
  client: string;
  status: 'removed' | 'not-found' | 'failed' | 'manual';
  error: string | null;
  removed?: string[];
  location?: string;
  instructions?: string[];
  display: string;
  hadToken: boolean;
}

/** The statuses that leave the exit code at 0. */
export const OK = new Set(['removed', 'not-found', 'manual']);

export function rowJson(row: Row): JsonValue {
  const out: { [key: string]: JsonValue } = { client: row.client, status: row.status, error: row.error };
  if (row.removed) out.removed = row.removed;
  if (row.location !== undefined) out.location = row.location;
  if (row.instructions) out.instructions = row.instructions;
  return out;
}

const PAD = ' '.repeat(17);

export function report(ctx: Context, rows: Row[], revocations: Revocation[], info: RuntimeInfo | null, revoke: boolean, targets: string[]): void {
  const s = ctx.out.style;
  const e = ctx.out.errStyle;
  ctx.out.line();
  for (const row of rows) {
    if (row.status === 'removed') ctx.out.line(`  ${s.green('removed'.padEnd(15))}${row.display} ('${(row.removed ?? []).join(', ')}')  ->  ${shortenHome(row.location ?? '')}`);
    else if (row.status === 'not-found') ctx.out.line(`  ${'not found'.padEnd(15)}${row.display}  (no matching entry)`);
    else if (row.status === 'failed') ctx.out.warn(`  ${e.red('failed'.padEnd(15))}${row.display}  (${row.error ?? ''})`);
    else {
      ctx.out.warn(`  ${e.yellow('action needed'.padEnd(15))}${row.client}`);
      for (const step of row.instructions ?? []) ctx.out.line(`${PAD}- ${step}`);
    }
  }
  for (const r of revocations) {
    if (r.status === 'revoked') ctx.out.line(`  ${s.green('revoked'.padEnd(15))}service account '${r.account}'`);
    else if (r.status === 'not-found') ctx.out.line(`  ${'no account'.padEnd(15)}'${r.account}' (already revoked or never minted)`);
    else ctx.out.warn(`  ${e.red('revoke failed'.padEnd(15))}'${r.account}'  (${r.error ?? ''})`);
  }
  const removed = rows.filter((r) => r.status === 'removed');
  if (removed.length === 0) {
    if (!info && targets.length > 0 && rows.some((r) => r.status === 'not-found')) {
      ctx.out.line();
      ctx.out.line('No entry points at those addresses. For a runtime that is gone, pass its address (--url) or the entry name (--server-name).');
    }
    return;
  }
  ctx.out.line();
  ctx.out.warn(`Restart ${removed.map((r) => r.display).sort().join(', ')} to drop the connection.`);
  // Removing an entry does not invalidate its token; say so when a token was in what we removed.
  if (!revoke && removed.some((r) => r.hadToken)) {
    // A reminder of what to do next, like connect's "Revoke any time with": stdout.
    ctx.out.line(`Tokens minted for these apps stay valid. Revoke them with: svc tokens revoke <name>${info ? ` --url ${info.url}` : ''}`);
  }
}
