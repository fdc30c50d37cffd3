/**
 * @module knowledge/vector-stores/postgres/narrowing-indexes
 * The indexes through which a narrowed search reaches the rows it may see: a GIN index
 * (`jsonb_path_ops`) on the metadata, which answers the containment a filter's equalities imply
 * (`postgresContainment` in ../filter-sql.ts), and btree indexes on the owner and tenant columns
 * of the scope. With them a selective narrowing is answered exactly over its few rows instead of
 * walking the HNSW graph among rows that mostly fail it (narrowed-search.ts).
 *
 * Built like the HNSW index and in the same session (hnsw-build.ts): `CREATE INDEX CONCURRENTLY`
 * under the build lock, one runtime at a time, on new and existing tables alike, writes going
 * on; an invalid one (an interrupted build) is dropped and built again. Searches use the indexed
 * path only once they are valid (`ctx.narrowing`).
 */
import type { SqlClient } from '../../../storage/db.js';
import type { NarrowingIndexes, PostgresStoreContext } from './context.js';

type Part = keyof NarrowingIndexes;

/** Each index's name and definition (after `ON {t}_chunks`). */
export function narrowingIndexDefinitions(t: string): Record<Part, { name: string; using: string }> {
  return {
    meta: { name: `${t}_chunks_meta`, using: 'USING GIN (meta_data jsonb_path_ops)' },
    user: { name: `${t}_chunks_user`, using: '(user_id)' },
    tenant: { name: `${t}_chunks_tenant`, using: '(tenant_id)' },
  };
}

/** The narrowing indexes as the catalog has them: name -> valid. */
async function existing(ctx: PostgresStoreContext, sql: SqlClient): Promise<Map<string, boolean>> {
  const names = Object.values(narrowingIndexDefinitions(ctx.t)).map((d) => d.name);
  const rows = await sql.query<{ name: string; valid: boolean }>(
    `SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = to_regclass($1) AND c.relname IN ($2, $3, $4)`,
    [`${ctx.t}_chunks`, ...names],
  );
  return new Map(rows.map((r) => [r.name, r.valid === true]));
}

/** Reads which narrowing indexes are valid into `ctx.narrowing`. */
export async function adoptNarrowingIndexes(ctx: PostgresStoreContext, sql: SqlClient): Promise<void> {
  const found = await existing(ctx, sql);
  const defs = narrowingIndexDefinitions(ctx.t);
  ctx.narrowing = { meta: found.get(defs.meta.name) === true, user: found.get(defs.user.name) === true, tenant: found.get(defs.tenant.name) === true };
}

/**
 * On the build's own session (outside any transaction, holding the build lock): builds each
 * narrowing index that is missing or invalid, CONCURRENTLY, then adopts them.
 */
export async function buildNarrowingIndexes(ctx: PostgresStoreContext, s: SqlClient): Promise<void> {
  const found = await existing(ctx, s);
  for (const { name, using } of Object.values(narrowingIndexDefinitions(ctx.t))) {
    if (found.get(name) === true) continue;
    if (found.has(name)) await s.execute(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
    await s.execute(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON ${ctx.t}_chunks ${using}`);
  }
  await adoptNarrowingIndexes(ctx, s);
}
