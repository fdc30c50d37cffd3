/**
 * @module knowledge/vector-stores/postgres/reindex
 * The PostgreSQL store's side of a reindex (../reindex.ts): stage, count, swap.
 *
 * The target goes in `{t}_meta` (its row lock orders concurrent starts), new vectors are staged
 * in `{t}_reindex` for chunks that still hold the embedded text, and the swap moves them into
 * the chunk table in one transaction while writers wait, rebuilding the HNSW index for a new
 * dimension. The swap waits until no runtime builds an index (hnsw-build.ts's lock).
 */
import { embedderConflict, embedderKey } from '../embedder-record.js';
import { embedderStateOf, reindexDone, type PendingChunk, type StoreEmbedderState } from '../reindex.js';
import { pgvectorOf, type PostgresStoreContext } from './context.js';
import type { SqlClient } from '../../../storage/db.js';
import { LOCK_POLL_MS, indexesNotFor, prepareHnsw, tryBuildLock } from './hnsw-build.js';
import { readMeta } from './meta.js';
import { vectorLiteral } from './pgvector.js';

export async function embedderState(ctx: PostgresStoreContext): Promise<StoreEmbedderState> {
  pgvectorOf(ctx);
  return embedderStateOf(await readMeta(ctx, ctx.db));
}

export async function beginReindex(ctx: PostgresStoreContext, target: string): Promise<void> {
  pgvectorOf(ctx);
  await ctx.db.transaction(async (tx) => {
    // One reindex at a time: the row lock orders concurrent starts.
    await tx.execute(`INSERT INTO ${ctx.t}_meta (key, value) VALUES ('reindex', $1) ON CONFLICT (key) DO NOTHING`, [target]);
    const [current] = await tx.query<{ value: string }>(`SELECT value FROM ${ctx.t}_meta WHERE key = 'reindex' FOR UPDATE`);
    if (current?.value === target) return;
    await tx.execute(`UPDATE ${ctx.t}_meta SET value = $1 WHERE key = 'reindex'`, [target]);
    await tx.execute(`DELETE FROM ${ctx.t}_reindex`);
  });
}

export async function pendingChunks(ctx: PostgresStoreContext, limit: number): Promise<PendingChunk[]> {
  const t = ctx.t;
  return ctx.db.query<PendingChunk>(
    `SELECT c.content_id, c.chunk_id, c.content FROM ${t}_chunks c
       WHERE NOT EXISTS (SELECT 1 FROM ${t}_reindex r WHERE r.content_id = c.content_id AND r.chunk_id = c.chunk_id)
       ORDER BY c.content_id, c.chunk_id LIMIT $1`,
    [limit],
  );
}

export async function stageVectors(ctx: PostgresStoreContext, rows: readonly (PendingChunk & { embedding: number[] })[]): Promise<number> {
  const { type: vectorType } = pgvectorOf(ctx);
  const t = ctx.t;
  if (rows.length === 0) return 0;
  return ctx.db.transaction(async (tx) => {
    let staged = 0;
    for (const r of rows) {
      // Only if the chunk still holds the text that was embedded (it may have been replaced meanwhile).
      staged += await tx.execute(
        `INSERT INTO ${t}_reindex (content_id, chunk_id, embedding)
           SELECT $1, $2, $3::${vectorType} WHERE EXISTS (SELECT 1 FROM ${t}_chunks WHERE content_id = $1 AND chunk_id = $2 AND content = $4)
           ON CONFLICT (content_id, chunk_id) DO NOTHING`,
        [r.content_id, r.chunk_id, vectorLiteral(r.embedding), r.content],
      );
    }
    return staged;
  });
}

export async function reindexCounts(ctx: PostgresStoreContext): Promise<{ done: number; total: number }> {
  const t = ctx.t;
  const [row] = await ctx.db.query<{ total: string | number; done: string | number }>(
    `SELECT (SELECT count(*) FROM ${t}_chunks) AS total,
              (SELECT count(*) FROM ${t}_reindex r WHERE EXISTS (SELECT 1 FROM ${t}_chunks c WHERE c.content_id = r.content_id AND c.chunk_id = r.chunk_id)) AS done`,
  );
  return { done: Number(row?.done ?? 0), total: Number(row?.total ?? 0) };
}

export async function finishReindex(ctx: PostgresStoreContext, target: string): Promise<boolean> {
  // A build for the old vectors would hold its lock on the table through the swap.
  const cancelled = ctx.hnswBuild;
  await cancelled?.cancel();
  let swapped: number | null | false | 'building';
  // Not while any runtime builds an index: the build holds its lock on the table to the end, and
  // waits for writers' snapshots; writers wait for the embedder record, which this locks.
  while ((swapped = await ctx.db.transaction((tx) => swap(ctx, tx, target))) === 'building') {
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
  if (swapped === false) {
    // Not swapped: the build for the vectors still searched starts again.
    if (cancelled) {
      ctx.hnswBuild = undefined;
      await prepareHnsw(ctx, cancelled.dims);
    }
    return false;
  }
  if (swapped !== null) {
    if (swapped !== ctx.hnswIndex?.dims) ctx.hnswIndex = undefined;
    // The index for the new vectors (or the build cancelled above) starts again.
    ctx.hnswBuild = undefined;
    await prepareHnsw(ctx, swapped);
  }
  return true;
}

/** The swap, in one transaction: 'building' when a build holds the lock, false when not ready. */
async function swap(ctx: PostgresStoreContext, tx: SqlClient, target: string): Promise<number | null | false | 'building'> {
  const t = ctx.t;
  if (!(await tryBuildLock(ctx, tx))) return 'building';
  const meta = await tx.query<{ key: string; value: string }>(`SELECT key, value FROM ${t}_meta ORDER BY key FOR UPDATE`);
  if (meta.find((m) => m.key === 'reindex')?.value !== target) return false;
  // Writers of chunks wait until the swap is done, so none slips in between the check and it.
  await tx.execute(`LOCK TABLE ${t}_chunks IN SHARE ROW EXCLUSIVE MODE`);
  const [left] = await tx.query(
    `SELECT 1 FROM ${t}_chunks c WHERE NOT EXISTS (SELECT 1 FROM ${t}_reindex r WHERE r.content_id = c.content_id AND r.chunk_id = c.chunk_id) LIMIT 1`,
  );
  if (left) return false;
  const dimsOf = pgvectorOf(ctx).type.replace(/\.vector$/, '.vector_dims');
  const dims = await tx.query<{ dims: number }>(`SELECT DISTINCT ${dimsOf}(embedding) AS dims FROM ${t}_reindex`);
  if (dims.length > 1) throw embedderConflict(target, 'vectors of mixed lengths');
  // An HNSW index is built for one dimension (its expression casts to it): one for another goes.
  // As the catalog has them: this runtime may not know an index another one built.
  const stale = dims[0] ? await indexesNotFor(ctx, tx, Number(dims[0].dims)) : [];
  if (stale.length > 0) await tx.execute(`DROP INDEX IF EXISTS ${stale.join(', ')}`);
  const chunks = await tx.execute(
    `UPDATE ${t}_chunks c SET embedding = r.embedding FROM ${t}_reindex r WHERE r.content_id = c.content_id AND r.chunk_id = c.chunk_id`,
  );
  await tx.execute(`DELETE FROM ${t}_reindex`);
  await tx.execute(`DELETE FROM ${t}_meta WHERE key = 'reindex'`);
  const dimensions = dims[0] ? Number(dims[0].dims) : null;
  // Updated in place, so a writer that waited on the row reads the new value.
  if (dimensions === null) await tx.execute(`DELETE FROM ${t}_meta WHERE key = 'embedder'`);
  else await tx.execute(`INSERT INTO ${t}_meta (key, value) VALUES ('embedder', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [embedderKey(target, dimensions)]);
  await tx.execute(`INSERT INTO ${t}_meta (key, value) VALUES ('reindex_done', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [reindexDone(target, dimensions, chunks)]);
  return dimensions;
}
