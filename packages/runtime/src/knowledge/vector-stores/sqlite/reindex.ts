/**
 * @module knowledge/vector-stores/sqlite/reindex
 * The SQLite store's side of a reindex (../reindex.ts): stage, count, swap.
 *
 * The target goes in `{t}_meta`, new vectors are staged in `{t}_reindex` for visible chunks that
 * still hold the embedded text, and the swap moves them into the chunk table in one
 * transaction, dropping the indexes built on the old vectors.
 */
import { embedderConflict, embedderKey } from '../embedder-record.js';
import { embedderStateOf, reindexDone, type PendingChunk, type StoreEmbedderState } from '../reindex.js';
import type { SqliteStoreContext } from './context.js';
import { dropIvf } from './ivf-tables.js';
import { readMeta } from './meta.js';
import { visible } from './staging.js';

export function embedderState(ctx: SqliteStoreContext): StoreEmbedderState {
  return embedderStateOf(ctx.run((db) => readMeta(db, ctx.t)));
}

export function beginReindex(ctx: SqliteStoreContext, target: string): void {
  const t = ctx.t;
  ctx.run((db) =>
    db.transaction(() => {
      const current = readMeta(db, t).reindex;
      if (current === target) return;
      db.prepare(`INSERT INTO ${t}_meta (key, value) VALUES ('reindex', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(target);
      db.prepare(`DELETE FROM ${t}_reindex`).run();
    }).immediate(),
  );
}

export function pendingChunks(ctx: SqliteStoreContext, limit: number): PendingChunk[] {
  const t = ctx.t;
  return ctx.run(
    (db) =>
      db
        .prepare(
          `SELECT c.content_id, c.chunk_id, c.content FROM ${t}_chunks c
             WHERE ${visible(t, ctx.staged)} AND NOT EXISTS (SELECT 1 FROM ${t}_reindex r WHERE r.content_id = c.content_id AND r.chunk_id = c.chunk_id)
             ORDER BY c.content_id, c.chunk_id LIMIT ?`,
        )
        .all(limit) as PendingChunk[],
  );
}

export function stageVectors(ctx: SqliteStoreContext, rows: readonly (PendingChunk & { embedding: number[] })[]): number {
  const t = ctx.t;
  return ctx.run((db) =>
    db.transaction(() => {
      // Only if the chunk still holds the text that was embedded (it may have been replaced meanwhile).
      const insert = db.prepare(
        `INSERT INTO ${t}_reindex (content_id, chunk_id, embedding)
           SELECT @cid, @chid, @embedding WHERE EXISTS (SELECT 1 FROM ${t}_chunks c WHERE content_id = @cid AND chunk_id = @chid AND content = @content AND ${visible(t, ctx.staged)})
           ON CONFLICT (content_id, chunk_id) DO NOTHING`,
      );
      let staged = 0;
      for (const r of rows) {
        staged += insert.run({ cid: r.content_id, chid: r.chunk_id, embedding: Buffer.from(new Float32Array(r.embedding).buffer), content: r.content }).changes;
      }
      return staged;
    }).immediate(),
  );
}

export function reindexCounts(ctx: SqliteStoreContext): { done: number; total: number } {
  const t = ctx.t;
  const row = ctx.run(
    (db) =>
      db
        .prepare(
          `SELECT (SELECT count(*) FROM ${t}_chunks c WHERE ${visible(t, ctx.staged)}) AS total,
                    (SELECT count(*) FROM ${t}_reindex r WHERE EXISTS (SELECT 1 FROM ${t}_chunks c WHERE c.content_id = r.content_id AND c.chunk_id = r.chunk_id AND ${visible(t, ctx.staged)})) AS done`,
        )
        .get() as { total: number; done: number },
  );
  return { done: row.done, total: row.total };
}

/** Swaps the staged vectors in when every visible chunk has one and `target` is the reindex in progress. */
export function swapReindexed(ctx: SqliteStoreContext, target: string): boolean {
  const t = ctx.t;
  return ctx.run((db) =>
    db.transaction(() => {
      const meta = readMeta(db, t);
      if (meta.reindex !== target) return false;
      const left = db
        .prepare(`SELECT 1 FROM ${t}_chunks c WHERE ${visible(t, ctx.staged)} AND NOT EXISTS (SELECT 1 FROM ${t}_reindex r WHERE r.content_id = c.content_id AND r.chunk_id = c.chunk_id) LIMIT 1`)
        .get();
      if (left) return false;
      const dims = db.prepare(`SELECT DISTINCT length(embedding) / 4 AS dims FROM ${t}_reindex`).all() as { dims: number }[];
      if (dims.length > 1) throw embedderConflict(target, 'vectors of mixed lengths');
      // Visible rows only: a hidden version is on its way out, and its text may not be the one embedded.
      const hidden = ctx.staged ? ` WHERE version NOT IN (SELECT version FROM ${t}_hidden)` : '';
      const chunks = db
        .prepare(`UPDATE ${t}_chunks SET embedding = (SELECT r.embedding FROM ${t}_reindex r WHERE r.content_id = ${t}_chunks.content_id AND r.chunk_id = ${t}_chunks.chunk_id)${hidden}`)
        .run().changes;
      // The candidate index holds the old vectors: it is rebuilt for the new ones.
      if (ctx.bits) {
        db.exec(`DROP TABLE IF EXISTS ${t}_vec_bits`);
        ctx.bits = false;
      }
      // The centroids and lists describe the old vectors: dropped here, trained again after.
      dropIvf(db, t);
      db.prepare(`DELETE FROM ${t}_reindex`).run();
      db.prepare(`DELETE FROM ${t}_meta WHERE key IN ('reindex', 'embedder')`).run();
      const dimensions = dims[0]?.dims ?? null;
      if (dimensions !== null) db.prepare(`INSERT INTO ${t}_meta (key, value) VALUES ('embedder', ?)`).run(embedderKey(target, dimensions));
      db.prepare(`INSERT INTO ${t}_meta (key, value) VALUES ('reindex_done', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(reindexDone(target, dimensions, chunks));
      return true;
    }).immediate(),
  );
}
