/**
 * @module knowledge/vector-stores/postgres/vector-search
 * The PostgreSQL store's vector search: exact cosine, or HNSW first when it serves.
 *
 * Exact cosine (pgvector's `<=>`), filtered and scoped in the same query by type-exact JSONB
 * conditions; through the HNSW index first when it serves the query's dimension, the exact scan
 * answering when a filter leaves it short of `limit`.
 */
import type { SqlValue } from '../../../storage/db.js';
import type { Filter } from '../filter-language.js';
import { postgresConditions } from '../filter-sql.js';
import { HIT_COLUMNS, cosineSimilarity, toHit, type ChunkRow } from '../hits.js';
import type { SearchHit } from '../vector-store.js';
import { pgvectorOf, type PostgresStoreContext } from './context.js';
import { hnswSearch } from './hnsw.js';
import { vectorLiteral } from './pgvector.js';

export async function vectorSearch(ctx: PostgresStoreContext, vector: number[], limit: number, filters: Filter | undefined, visibleTo: string | undefined): Promise<SearchHit[]> {
  if (ctx.hnsw && ctx.hnswDims === vector.length) {
    const approximate = await hnswSearch(ctx, vector, limit, filters, visibleTo, ctx.hnsw.efSearch);
    // A filter can leave the index's candidates short of `limit`: then scan exactly.
    if (approximate.length >= limit) return approximate;
  }
  const { type: vectorType, cosine } = pgvectorOf(ctx);
  const params: SqlValue[] = [vectorLiteral(vector), limit];
  const where = postgresConditions(filters, visibleTo, params);
  const rows = await ctx.db.query<ChunkRow & { score: number | string }>(
    `SELECT ${HIT_COLUMNS}, (embedding ${cosine} $1::${vectorType}) AS score
       FROM ${ctx.t}_chunks WHERE embedding IS NOT NULL ${where} ORDER BY score LIMIT $2`,
    params,
  );
  return rows.map((r) => toHit(r, cosineSimilarity(Number(r.score))));
}
