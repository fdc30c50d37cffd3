/**
 * @module knowledge/vector-stores/postgres/hnsw
 * The PostgreSQL store's HNSW search (settings: hnsw-settings.ts; build: hnsw-build.ts).
 *
 * The index is on the column cast to the stored vectors' dimension (an index needs one; the
 * column takes any), by default as `halfvec` (half the size, the same recall; the column keeps
 * full precision, and the candidates are re-sorted by it). A search sets `hnsw.ef_search` for
 * its transaction and, when a filter or a user's scope narrows it, pgvector 0.8's iterative
 * scan, which keeps walking the graph while the WHERE rejects candidates, up to
 * `hnsw.max_scan_tuples`, in `relaxed_order` (better recall than `strict_order` in pgvector's
 * measurements and ours), which hands rows over nearly, not exactly, in order: so
 * `filteredCandidates` times `limit` are taken and the nearest `limit` of them kept (taking just
 * `limit` gave recall 0.90 under a 1 % filter at 100k chunks, twice 0.91-0.96 across filters and
 * scopes, eight times 0.95-0.98). Narrowed, the planner is kept off the sequential scan: it costs
 * the walk by how many rows the LIMIT needs over the share it expects to match, and with more
 * candidates chose to score every row of the table (exact, 10-20 times slower than the walk);
 * and off bitmap scans of the narrowing's indexes, which would score every row they reach: a
 * narrowing that matches few rows was answered exactly before the walk (narrowed-search.ts).
 */
import type { ChunkScope } from '../chunk-scope.js';
import type { SqlValue } from '../../../storage/db.js';
import type { Filter } from '../filter-language.js';
import { postgresConditions } from '../filter-sql.js';
import { HIT_COLUMNS, cosineSimilarity, toHit, type ChunkRow } from '../hits.js';
import type { SearchHit } from '../vector-store.js';
import { pgvectorOf, type HnswIndex, type PostgresStoreContext } from './context.js';
import { vectorLiteral } from './pgvector.js';

/** At most this many candidates of a narrowed search are re-sorted (the scan stops at `max_scan_tuples` anyway). */
const MAX_CANDIDATES = 10_000;

/** The indexed expression's type: `"schema".halfvec(512)` or `"schema".vector(512)`. */
export function indexedType(ctx: PostgresStoreContext, index: Pick<HnswIndex, 'dims' | 'half'>): string {
  const { schema } = pgvectorOf(ctx);
  return `${schema}.${index.half ? 'halfvec' : 'vector'}(${index.dims})`;
}

/**
 * Through the HNSW index: the inner ORDER BY must be the indexed expression for the planner to
 * use it; the outer query re-sorts the candidates by full-precision distance (halfvec's are
 * rounded, so near ties may come out of order) and keeps `limit`.
 */
export async function hnswSearch(ctx: PostgresStoreContext, index: HnswIndex, vector: number[], limit: number, filters: Filter | undefined, visibleTo: ChunkScope | undefined): Promise<SearchHit[]> {
  const settings = ctx.hnsw!;
  const { type: vectorType, cosine } = pgvectorOf(ctx);
  const typed = indexedType(ctx, index);
  const params: SqlValue[] = [vectorLiteral(vector), limit];
  const where = postgresConditions(filters, visibleTo, params);
  const narrowed = where.length > 0;
  const efSearch = Math.min(1000, Math.max(limit, narrowed ? settings.filteredEfSearch : settings.efSearch));
  const rows = await ctx.db.transaction(async (tx) => {
    await tx.execute(`SET LOCAL hnsw.ef_search = ${efSearch}`);
    if (narrowed && ctx.iterativeScan) {
      // pgvector 0.8: keep walking the graph while the WHERE rejects candidates.
      await tx.execute(`SET LOCAL hnsw.iterative_scan = relaxed_order`);
      await tx.execute(`SET LOCAL hnsw.max_scan_tuples = ${settings.maxScanTuples}`);
      await tx.execute('SET LOCAL enable_seqscan = off');
      // Nor a bitmap scan of the narrowing's indexes and a sort of every row it reaches: few
      // such rows were answered exactly before (narrowed-search.ts), so here there are many.
      await tx.execute('SET LOCAL enable_bitmapscan = off');
    }
    return tx.query<ChunkRow & { score: number | string }>(
      `SELECT * FROM (
         SELECT ${HIT_COLUMNS}, (embedding ${cosine} $1::${vectorType}) AS score
           FROM ${ctx.t}_chunks WHERE embedding IS NOT NULL ${where}
           ORDER BY embedding::${typed} ${cosine} $1::${vectorType}::${typed} LIMIT ${narrowed ? Math.min(MAX_CANDIDATES, settings.filteredCandidates * Math.trunc(limit)) : '$2'}
       ) candidates ORDER BY score LIMIT $2`,
      params,
    );
  });
  return rows.map((r) => toHit(r, cosineSimilarity(Number(r.score))));
}
