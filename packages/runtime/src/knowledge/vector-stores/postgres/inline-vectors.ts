/**
 * @module knowledge/vector-stores/postgres/inline-vectors
 * Keeps each chunk's vector in its table row rather than in the TOAST table.
 *
 * A 512-d vector is ~2 KB, over PostgreSQL's 2 KB threshold for moving a row's largest values
 * out of line, and pgvector's type is stored `EXTERNAL`: every vector lived in the TOAST table,
 * and reading one cost a TOAST index lookup and two TOAST pages. Scoring the few thousand rows
 * a narrowing reaches (narrowed-search.ts) spent most of its time there: at 100k chunks,
 * 1,000 / 4,000 rows took ~11 / ~19 ms p50 with TOASTed vectors, ~3-5 / ~7-11 ms inline. So
 * the column is `STORAGE MAIN` (compressed or moved out only as a last resort) and the table's
 * `toast_tuple_target` 8160 (rows up to a page stay whole; a longer text is still compressed
 * or moved out first).
 *
 * New tables get both when created. An existing table gets them in the HNSW build's session
 * (hnsw-build.ts: under the build lock, so no runtime's concurrent build is waiting on it), with
 * a short `lock_timeout`, since ALTER TABLE locks out searches while it waits for its lock: if
 * it cannot have the lock at once it is tried again at the next open. Rows written before stay
 * as they are until rewritten (a re-upload, a reindex); searches read both alike.
 */
import type { SqlClient } from '../../../storage/db.js';
import type { PostgresStoreContext } from './context.js';

/** The ALTER TABLE clauses that keep vectors inline. */
const INLINE = (t: string) => `ALTER TABLE ${t}_chunks SET (toast_tuple_target = 8160), ALTER COLUMN embedding SET STORAGE MAIN`;

/** Right after this runtime created the table (empty, so the lock is had at once). */
export async function inlineNewTable(ctx: PostgresStoreContext): Promise<void> {
  await ctx.db.execute(INLINE(ctx.t));
}

/** Whether the table already keeps vectors inline (so nothing is locked to do it again). */
async function isInline(ctx: PostgresStoreContext, sql: SqlClient): Promise<boolean> {
  const [row] = await sql.query<{ storage: string; options: string[] | null }>(
    `SELECT a.attstorage AS storage, c.reloptions AS options FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'embedding'
      WHERE c.oid = to_regclass($1)`,
    [`${ctx.t}_chunks`],
  );
  return row?.storage === 'm' && (row.options ?? []).includes('toast_tuple_target=8160');
}

/** On the build's session: an existing table is switched, if its lock can be had within 2 s. */
export async function inlineExistingTable(ctx: PostgresStoreContext, s: SqlClient): Promise<void> {
  if (await isInline(ctx, s)) return;
  await s.execute(`SET lock_timeout = '2s'`);
  try {
    await s.execute(INLINE(ctx.t));
  } catch {
    // Searches or writes held the table: the next open tries again.
  } finally {
    await s.execute('RESET lock_timeout');
  }
}
