/**
 * @module knowledge/vector-stores/postgres/vector-search
 * The PostgreSQL store's vector search: through the HNSW index when one serves, else exact;
 * a narrowing that an index reaches and that matches few rows, exactly over those rows
 * (narrowed-search.ts).
 *
 * Exact cosine (pgvector's `<=>`), filtered and scoped in the same query by type-exact JSONB
 * conditions; through the HNSW index (hnsw.ts) when one serves the query's dimension, the exact
 * scan answering when the index's scan stops short of `limit` (a filter or scope so selective
 * that `hnsw.max_scan_tuples` ran out first), so a search returns `limit` hits whenever that
 * many chunks match.
 */
import type { ChunkScope } from '../chunk-scope.js';
import type { SqlValue } from '../../../storage/db.js';
import type { Filter } from '../filter-language.js';
import { postgresConditions } from '../filter-sql.js';
import { HIT_COLUMNS, cosineSimilarity, toHit, type ChunkRow } from '../hits.js';
import type { SearchHit } from '../vector-store.js';
import { pgvectorOf, type PostgresStoreContext } from './context.js';
import { hnswSearch } from './hnsw.js';
import { exactNarrowedSearch, narrowedPath, rememberBroad } from './narrowed-search.js';
import { vectorLiteral } from './pgvector.js';

export async function vectorSearch(ctx: PostgresStoreContext, vector: number[], limit: number, filters: Filter | undefined, visibleTo: ChunkScope | undefined): Promise<SearchHit[]> {
  const index = ctx.hnswIndex;
  if (ctx.hnsw && index?.dims === vector.length) {
    // Few rows an index reaches: exact over them; many: the graph (narrowed-search.ts).
    if (narrowedPath(ctx, filters, visibleTo) === 'exact') {
      const exact = await exactNarrowedSearch(ctx, vector, limit, filters, visibleTo, ctx.hnsw.exactNarrowedRows);
      if (exact) return exact;
      rememberBroad(ctx, filters, visibleTo);
    }
    const approximate = await hnswSearch(ctx, index, vector, limit, filters, visibleTo);
    if (approximate.length >= limit) return approximate;
  }
  return exactSearch(ctx, vector, limit, filters, visibleTo);
}

/** Every matching row scored: the ground truth, and the answer when no index serves. */
export async function exactSearch(ctx: PostgresStoreContext, vector: number[], limit: number, filters: Filter | undefined, visibleTo: ChunkScope | undefined): Promise<SearchHit[]> {
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
