/**
 * @module knowledge/vector-stores/postgres/meta
 * The PostgreSQL store's `{t}_meta` table of key/value records, read whole.
 */
import type { SqlClient } from '../../../storage/db.js';
import type { PostgresStoreContext } from './context.js';

/**
 * Every record. `lock`: FOR SHARE, so a reindex's swap (which locks these rows for update) waits
 * for this writer, or this writer for it. Both lock in key order, so neither can hold one row
 * the other waits on.
 */
export async function readMeta(ctx: PostgresStoreContext, sql: SqlClient, lock = false): Promise<Record<string, string>> {
  const rows = await sql.query<{ key: string; value: string }>(`SELECT key, value FROM ${ctx.t}_meta ORDER BY key ${lock ? 'FOR SHARE' : ''}`);
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}
