/**
 * @module knowledge/vector-stores/postgres/writes
 * Replacing and deleting a content's chunks in the PostgreSQL store.
 *
 * Each in one transaction (the driver is asynchronous, so nothing here holds the event loop; the
 * contents a write replaces are deleted in it too):
 * the embedder record is checked, the rows go in many to a statement, and a reindex in progress
 * gets the vectors of its target embedder in its staging table too.
 */
import type { SqlClient, SqlValue } from '../../../storage/db.js';
import { embedderConflict, embedderKey, vectorDimensions } from '../embedder-record.js';
import { routeVectors } from '../reindex.js';
import type { ChunkOwner, StoredChunk } from '../vector-store.js';
import { pgvectorOf, type PostgresStoreContext } from './context.js';
import { prepareHnsw } from './hnsw-build.js';
import { vectorLiteral } from './pgvector.js';
import { readMeta } from './meta.js';

/** Rows per INSERT: 10 parameters each, well under PostgreSQL's 65,535 per statement. */
const INSERT_BATCH = 500;

export async function upsertContent(
  ctx: PostgresStoreContext,
  contentId: string,
  chunks: readonly StoredChunk[],
  embedderId: string | undefined,
  owner: ChunkOwner,
  replaces: readonly string[] = [],
): Promise<void> {
  const { type: vectorType } = pgvectorOf(ctx);
  const t = ctx.t;
  let searched = false;
  await ctx.db.transaction(async (tx) => {
    const route = await checkEmbedder(ctx, tx, chunks, embedderId);
    searched = route.main;
    // The contents it replaces go in the same transaction, so no search sees both or neither.
    for (const id of new Set([contentId, ...replaces])) {
      await tx.execute(`DELETE FROM ${t}_chunks WHERE content_id = $1`, [id]);
      await tx.execute(`DELETE FROM ${t}_reindex WHERE content_id = $1`, [id]);
    }
    const now = Math.floor(Date.now() / 1000);
    // Many rows per statement: one round trip per row made 100k chunks take minutes.
    for (let start = 0; start < chunks.length; start += INSERT_BATCH) {
      const params: SqlValue[] = [];
      const staged: SqlValue[] = [];
      const rows = chunks.slice(start, start + INSERT_BATCH).map((c) => {
        const vector = c.embedding ? vectorLiteral(c.embedding) : null;
        if (route.stage && vector) staged.push(contentId, c.id, vector);
        const n = params.push(
          contentId,
          c.id,
          c.name ?? null,
          stripNul(c.content),
          JSON.stringify(c.meta_data),
          JSON.stringify(c.filters),
          route.main ? vector : null,
          now,
          owner.knowledgeId ?? null,
          owner.userId ?? null,
          owner.tenantId ?? null,
        );
        const p = (i: number) => `$${n - 11 + i}`;
        return `(${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}::jsonb, ${p(6)}::jsonb, ${p(7)}::${vectorType}, ${p(8)}, ${p(9)}, ${p(10)}, ${p(11)})`;
      });
      await tx.execute(
        `INSERT INTO ${t}_chunks (content_id, chunk_id, name, content, meta_data, filters, embedding, created_at, knowledge_id, user_id, tenant_id) VALUES ${rows.join(', ')}`,
        params,
      );
      // A reindex in progress gets this content's vectors in its staging table too.
      if (staged.length > 0) {
        const values = Array.from({ length: staged.length / 3 }, (_, i) => `($${i * 3 + 1}, $${i * 3 + 2}, $${i * 3 + 3}::${vectorType})`);
        await tx.execute(`INSERT INTO ${t}_reindex (content_id, chunk_id, embedding) VALUES ${values.join(', ')}`, staged);
      }
    }
  });
  const dims = vectorDimensions(chunks);
  // Vectors staged for a reindex to another dimension are not the ones the index serves.
  // The first vectors fix the dimension the index casts to: its build starts in the background.
  if (dims !== undefined && searched && ctx.hnsw && ctx.hnswBuild === undefined) await prepareHnsw(ctx, dims);
}

async function checkEmbedder(ctx: PostgresStoreContext, tx: SqlClient, chunks: readonly StoredChunk[], embedderId: string | undefined): Promise<{ main: boolean; stage: boolean }> {
  const dims = vectorDimensions(chunks);
  if (dims === undefined) return { main: true, stage: false };
  const key = embedderKey(embedderId, dims);
  const meta = await readMeta(ctx, tx, true);
  const route = routeVectors(meta.embedder, meta.reindex, embedderId, key);
  if (route.stage) {
    if (chunks.some((c) => c.embedding && c.embedding.length !== dims)) throw embedderConflict(key, 'vectors of mixed lengths');
    return route;
  }
  // Concurrent first inserts agree through the primary key: the loser reads the winner's value.
  await tx.execute(`INSERT INTO ${ctx.t}_meta (key, value) VALUES ('embedder', $1) ON CONFLICT (key) DO NOTHING`, [key]);
  const stored = (await tx.query<{ value: string }>(`SELECT value FROM ${ctx.t}_meta WHERE key = 'embedder'`))[0]?.value;
  if (stored !== key) throw embedderConflict(stored ?? 'unknown', key);
  if (chunks.some((c) => c.embedding && c.embedding.length !== dims)) throw embedderConflict(key, 'vectors of mixed lengths');
  return route;
}

export async function deleteContent(ctx: PostgresStoreContext, contentId: string, ownedBy: string | undefined): Promise<number> {
  return ctx.db.transaction(async (tx) => {
    const deleted =
      ownedBy === undefined
        ? await tx.execute(`DELETE FROM ${ctx.t}_chunks WHERE content_id = $1`, [contentId])
        : await tx.execute(`DELETE FROM ${ctx.t}_chunks WHERE content_id = $1 AND user_id = $2`, [contentId, ownedBy]);
    // A content has one owner: when its chunks went, so do the vectors a reindex staged for it.
    if (ownedBy === undefined || deleted > 0) await tx.execute(`DELETE FROM ${ctx.t}_reindex WHERE content_id = $1`, [contentId]);
    return deleted;
  });
}

/** PostgreSQL text cannot hold NUL; agno substitutes U+FFFD too. */
function stripNul(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
}
