/**
 * @module knowledge/vector-stores/postgres/hnsw-build
 * Builds the PostgreSQL store's HNSW index without blocking writes, in the background.
 *
 * `CREATE INDEX CONCURRENTLY` on a connection of its own (`Db.session`, outside any transaction,
 * with `maintenance_work_mem` raised so the graph fits), so writers go on while a large table
 * is indexed. Nothing waits for it but `settled()` (tests, the bench) and close, which cancels
 * it: a build waits for every transaction older than it, so a caller holding one while waiting
 * for the build would never finish. One runtime builds at a time (an advisory lock, tried
 * rather than waited for: a waiting lock request holds a snapshot the build would wait out);
 * the others then find the index built. Searches use the wanted index once it is valid, an
 * older valid one (full precision, say) until then, and exact search when there is none. A
 * build that was interrupted leaves an invalid index: the next build drops it first. The same
 * session first keeps an older table's new vectors in the row (inline-vectors.ts) and builds
 * the indexes narrowed searches reach their rows through (narrowing-indexes.ts), the same way.
 */
import type { SqlClient } from '../../../storage/db.js';
import { pgvectorOf, type HnswIndex, type PostgresStoreContext } from './context.js';
import { indexedType } from './hnsw.js';
import { inlineExistingTable } from './inline-vectors.js';
import { adoptNarrowingIndexes, buildNarrowingIndexes } from './narrowing-indexes.js';

/** First key of the advisory lock a build holds (the second is the table's hash). */
const BUILD_LOCK = 7_777_021;
/** The lock's two keys, for `pg_try_advisory_lock` and its kin; `$1` is the table prefix. */
const LOCK_KEYS = `${BUILD_LOCK}, hashtext(current_schema() || '.' || $1)`;
export const LOCK_POLL_MS = 250;

interface ExistingIndex extends HnswIndex {
  valid: boolean;
}

export function hnswIndexNames(t: string): { full: string; half: string } {
  return { full: `${t}_chunks_hnsw`, half: `${t}_chunks_hnsw_half` };
}

/** The store's HNSW indexes as the catalog has them, with the dimension each casts to. */
async function existingIndexes(ctx: PostgresStoreContext, sql: SqlClient): Promise<ExistingIndex[]> {
  const { full, half } = hnswIndexNames(ctx.t);
  const rows = await sql.query<{ name: string; valid: boolean; def: string }>(
    `SELECT c.relname AS name, i.indisvalid AS valid, pg_get_indexdef(i.indexrelid) AS def
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = to_regclass($1) AND c.relname IN ($2, $3)`,
    [`${ctx.t}_chunks`, full, half],
  );
  return rows.map((r) => {
    const cast = /::(?:"?[\w$]+"?\.)?(halfvec|vector)\((\d+)\)/.exec(r.def);
    return { name: r.name, valid: r.valid === true, dims: cast ? Number(cast[2]) : 0, half: cast?.[1] === 'halfvec' };
  });
}

/** The index searches should use for `dims`: the wanted kind if valid, else any valid one. */
function choose(ctx: PostgresStoreContext, existing: readonly ExistingIndex[], dims: number): HnswIndex | undefined {
  const usable = existing.filter((e) => e.valid && e.dims === dims);
  const pick = usable.find((e) => e.half === ctx.hnsw?.halfvec) ?? usable[0];
  return pick && { name: pick.name, dims: pick.dims, half: pick.half };
}

/**
 * For vectors of `dims`: adopts the index that serves them now and, unless the wanted one is
 * already there, starts building it (once per dimension per store object).
 */
export async function prepareHnsw(ctx: PostgresStoreContext, dims: number): Promise<void> {
  if (!ctx.hnsw || ctx.hnswBuild?.dims === dims) return;
  // An index casts to one dimension, and halfvec's HNSW takes at most 4,000 (vector's 2,000).
  if (dims > (ctx.hnsw.halfvec ? 4000 : 2000)) return;
  ctx.hnswIndex = choose(ctx, await existingIndexes(ctx, ctx.db), dims);
  await adoptNarrowingIndexes(ctx, ctx.db);
  startBuild(ctx, dims);
}

function startBuild(ctx: PostgresStoreContext, dims: number): void {
  const session = ctx.db.session?.bind(ctx.db);
  if (!session) return;
  let pid: number | undefined;
  let cancelled = false;
  // The session's backend is cancelled only while it is ours: afterwards the pool lends it out.
  let running = true;
  const done = session(async (s) => {
    pid = Number((await s.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]?.pid);
    while (!(await s.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${LOCK_KEYS}) AS ok`, [ctx.t]))[0]?.ok) {
      if (cancelled) return;
      await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
    }
    try {
      await build(ctx, s, dims);
    } finally {
      await s.query(`SELECT pg_advisory_unlock(${LOCK_KEYS})`, [ctx.t]);
    }
  })
    .catch(() => {
      // Cancelled, or the build failed (out of memory, the table dropped): searches keep the
      // index they had, or scan exactly; the next open tries again.
    })
    .finally(() => {
      running = false;
    });
  ctx.hnswBuild = {
    dims,
    done,
    cancel: async () => {
      cancelled = true;
      if (running && pid !== undefined) await ctx.db.query('SELECT pg_cancel_backend($1)', [pid]).catch(() => undefined);
      await done;
    },
  };
}

async function build(ctx: PostgresStoreContext, s: SqlClient, dims: number): Promise<void> {
  const settings = ctx.hnsw!;
  // First the quick things: vectors kept in the row from now on (a table of an earlier
  // version), and the indexes a narrowed search reaches its rows through (seconds at 100k).
  await inlineExistingTable(ctx, s);
  await buildNarrowingIndexes(ctx, s);
  const { full, half } = hnswIndexNames(ctx.t);
  const name = settings.halfvec ? half : full;
  const mine = (await existingIndexes(ctx, s)).find((e) => e.name === name);
  if (!mine?.valid || mine.dims !== dims) {
    if (mine) await s.execute(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
    const { schema } = pgvectorOf(ctx);
    const typed = indexedType(ctx, { dims, half: settings.halfvec });
    await s.execute(`SET maintenance_work_mem = '${settings.buildMemory}'`);
    await s.execute(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON ${ctx.t}_chunks USING hnsw ((embedding::${typed}) ${schema}.${settings.halfvec ? 'halfvec' : 'vector'}_cosine_ops) WITH (m = ${settings.m}, ef_construction = ${settings.efConstruction})`,
    );
  }
  const after = await existingIndexes(ctx, s);
  ctx.hnswIndex = choose(ctx, after, dims);
  // The other kind (an index of an earlier version or setting) goes once this one serves.
  if (ctx.hnswIndex?.name === name) {
    for (const other of after) if (other.name !== name) await s.execute(`DROP INDEX CONCURRENTLY IF EXISTS ${other.name}`);
  }
}

/**
 * In a transaction, as its first statement: takes the build lock until the transaction ends, or
 * says that a build (of any runtime) holds it. A reindex's swap takes it before it locks
 * anything, so it never waits on a build's table lock while holding what the build waits for
 * (test/knowledge-pg-hnsw-swap.test.ts). Tried, not waited for, for the reason above.
 */
export async function tryBuildLock(ctx: PostgresStoreContext, tx: SqlClient): Promise<boolean> {
  return (await tx.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(${LOCK_KEYS}) AS ok`, [ctx.t]))[0]?.ok === true;
}

/** The store's HNSW indexes whose cast dimension is not `dims` (a swap to `dims` drops them). */
export async function indexesNotFor(ctx: PostgresStoreContext, sql: SqlClient, dims: number): Promise<string[]> {
  return (await existingIndexes(ctx, sql)).filter((e) => e.dims !== dims).map((e) => e.name);
}

/** Resolves when the build in progress (if any) has finished or failed. */
export async function hnswSettled(ctx: PostgresStoreContext): Promise<void> {
  await ctx.hnswBuild?.done;
}
