/**
 * @module knowledge/vector-stores/postgres/narrowed-search
 * A narrowed vector search answered exactly over the rows it may see, reached through an index,
 * when they are few.
 *
 * Under a selective filter or scope the HNSW walk visits many rows that fail it (about
 * candidates / share of the table: ~8,000 under a 1 % filter at 8 x limit), each a heap visit,
 * and came out slower than scoring the matching rows themselves. So when the narrowing has a
 * part an index answers (a filter's implied containment on the GIN index, the owner or tenant
 * column on their btree indexes: narrowing-indexes.ts), one statement reads up to
 * `exactNarrowedRows` + 1 matching rows (a bitmap scan when few match), each once, scores them
 * (the vectors are in the row: inline-vectors.ts) and keeps the nearest `limit`. When there
 * were at most `exactNarrowedRows` that is the answer: exact, so recall 1 and `limit` hits
 * whenever that many match. Otherwise it is dropped, the narrowing is remembered as broad for a
 * minute (no probe for it meanwhile: both paths answer rightly, only the cost differs), and the
 * caller walks the graph as before. None matching costs an index probe that finds nothing.
 * (One pass of the graph without the iterative scan, all its matching candidates re-sorted, was
 * measured for broad narrowings: faster, but recall@10 0.93-0.94 for one base of 8 even at
 * ef_search 1000.)
 */
import type { ChunkScope } from '../chunk-scope.js';
import type { SqlValue } from '../../../storage/db.js';
import type { Filter } from '../filter-language.js';
import { postgresConditions, postgresContainment } from '../filter-sql.js';
import { cosineSimilarity, toHit, type ChunkRow } from '../hits.js';
import type { SearchHit } from '../vector-store.js';
import { pgvectorOf, type PostgresStoreContext } from './context.js';
import { vectorLiteral } from './pgvector.js';

/** How long a narrowing found to match too many rows for the exact path is not probed again. */
const BROAD_FOR_MS = 60_000;
/** At most this many such narrowings remembered per store (the oldest forgotten first). */
const BROAD_REMEMBERED = 1000;

/**
 * The path a vector search under this narrowing takes where an HNSW index serves: `exact` over
 * the rows an index reaches (when at most `exactNarrowedRows` match; else the walk follows);
 * `broad`, a narrowing recently found to match more than that, and `walk` (no narrowing an
 * index reaches, or `exactNarrowedRows` 0): the iterative walk of the graph (hnsw.ts).
 */
export function narrowedPath(ctx: PostgresStoreContext, filters: Filter | undefined, visibleTo: ChunkScope | undefined): 'exact' | 'broad' | 'walk' {
  if (!ctx.hnsw || ctx.hnsw.exactNarrowedRows === 0 || !narrowingIndexed(ctx, filters, visibleTo)) return 'walk';
  const key = narrowingKey(filters, visibleTo);
  const until = ctx.broadNarrowings.get(key);
  if (until !== undefined && until > Date.now()) return 'broad';
  if (until !== undefined) ctx.broadNarrowings.delete(key);
  return 'exact';
}

/** Remembers for a while that this narrowing matched more rows than the exact path takes. */
export function rememberBroad(ctx: PostgresStoreContext, filters: Filter | undefined, visibleTo: ChunkScope | undefined): void {
  const key = narrowingKey(filters, visibleTo);
  ctx.broadNarrowings.delete(key);
  if (ctx.broadNarrowings.size >= BROAD_REMEMBERED) ctx.broadNarrowings.delete(ctx.broadNarrowings.keys().next().value!);
  ctx.broadNarrowings.set(key, Date.now() + BROAD_FOR_MS);
}

function narrowingKey(filters: Filter | undefined, visibleTo: ChunkScope | undefined): string {
  return JSON.stringify([filters ?? null, visibleTo?.user ?? null, visibleTo?.tenant ?? null]);
}

/**
 * Whether an index can reach the rows of this narrowing: a filter implying containment with the
 * metadata's GIN index valid, a user scope with the owner column's index, a tenant scope with
 * the tenant column's. Exported for tests.
 */
export function narrowingIndexed(ctx: PostgresStoreContext, filters: Filter | undefined, visibleTo: ChunkScope | undefined): boolean {
  const { meta, user, tenant } = ctx.narrowing;
  return (meta && filters !== undefined && postgresContainment(filters, 'meta_data', []) !== undefined) || (user && visibleTo?.user !== undefined) || (tenant && visibleTo?.tenant !== undefined);
}

/**
 * The nearest `limit` of the matching rows, exactly, when at most `cap` rows match; undefined
 * when more do (the caller then walks the index). Only the vectors of matching rows are read,
 * and the other columns of the nearest by address.
 */
export async function exactNarrowedSearch(
  ctx: PostgresStoreContext,
  vector: number[],
  limit: number,
  filters: Filter | undefined,
  visibleTo: ChunkScope | undefined,
  cap: number,
): Promise<SearchHit[] | undefined> {
  const { type: vectorType, cosine } = pgvectorOf(ctx);
  const t = `${ctx.t}_chunks`;
  const params: SqlValue[] = [vectorLiteral(vector), limit];
  const where = postgresConditions(filters, visibleTo, params);
  // Each matching row read once (at most cap + 1 of them) and scored; their number tells
  // whether these were all; the other columns read for the nearest only. One statement, no
  // transaction: the planner reaches few rows through the index (a bitmap scan) and may read
  // the table in order for many, the LIMIT bounding either.
  const rows = await ctx.db.query<Partial<ChunkRow> & { matched: number | string; score: number | string | null }>(
    `WITH scored AS MATERIALIZED (
       SELECT row_id, (embedding ${cosine} $1::${vectorType}) AS score
         FROM (SELECT ctid AS row_id, embedding FROM ${t} WHERE embedding IS NOT NULL ${where} LIMIT ${cap + 1}) narrowed
     )
     SELECT (SELECT count(*) FROM scored) AS matched, h.* FROM (VALUES (1)) AS one (x) LEFT JOIN (
       SELECT c.chunk_id, c.content_id, c.name, c.content, c.meta_data, s.score
         FROM (SELECT row_id, score FROM scored ORDER BY score LIMIT $2) s JOIN ${t} c ON c.ctid = s.row_id
     ) h ON true ORDER BY h.score`,
    params,
  );
  if (Number(rows[0]?.matched ?? 0) > cap) return undefined;
  return rows.filter((r) => r.score !== null && r.score !== undefined).map((r) => toHit(r as ChunkRow, cosineSimilarity(Number(r.score))));
}
