/**
 * @module knowledge/vector-stores/postgres/hnsw
 * The PostgreSQL store's optional HNSW index: its settings, its build and its search.
 *
 * Built on the column cast to the stored vectors' dimension (an index needs one; the column
 * takes any), searched with `hnsw.ef_search` per query and, on pgvector 0.8+,
 * `iterative_scan = strict_order`.
 */
import type { SqlValue } from '../../../storage/db.js';
import type { Filter } from '../filter-language.js';
import { postgresConditions } from '../filter-sql.js';
import { HIT_COLUMNS, cosineSimilarity, toHit, type ChunkRow } from '../hits.js';
import type { SearchHit } from '../vector-store.js';
import { pgvectorOf, type PostgresStoreContext } from './context.js';
import { vectorLiteral } from './pgvector.js';

/** pgvector's HNSW settings (see its README); the defaults are pgvector's, ef_search raised for recall. */
export interface HnswOptions {
  /** Links per node; default 16. */
  m?: number;
  /** Candidate list while building; default 64. */
  efConstruction?: number;
  /** Candidate list while searching (`hnsw.ef_search`); default 100. Higher: better recall, slower. */
  efSearch?: number;
}

export type HnswSettings = Required<HnswOptions>;

/** The options with their defaults, each checked against the range pgvector accepts. */
export function hnswSettings(options: HnswOptions): HnswSettings {
  const { m = 16, efConstruction = 64, efSearch = 100 } = options;
  checkSetting('m', m, 2, 100);
  checkSetting('efConstruction', efConstruction, 4, 1000);
  checkSetting('efSearch', efSearch, 1, 1000);
  return { m, efConstruction, efSearch };
}

function checkSetting(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) throw new TypeError(`PostgresVectorStore: hnsw.${name} must be a whole number from ${min} to ${max}, got ${value}`);
}

/**
 * The HNSW index, on the column cast to its dimension (an index needs one; the column takes any).
 * Built once; on a large table the first build takes a while.
 */
export async function createHnsw(ctx: PostgresStoreContext, dims: number): Promise<void> {
  if (!ctx.hnsw || ctx.hnswDims === dims || dims > 2000) return;
  const { type: vectorType, schema } = pgvectorOf(ctx);
  await ctx.db.execute(
    `CREATE INDEX IF NOT EXISTS ${ctx.t}_chunks_hnsw ON ${ctx.t}_chunks USING hnsw ((embedding::${vectorType}(${dims})) ${schema}.vector_cosine_ops) WITH (m = ${ctx.hnsw.m}, ef_construction = ${ctx.hnsw.efConstruction})`,
  );
  ctx.hnswDims = dims;
}

/** Through the HNSW index: the ORDER BY must be the indexed expression for the planner to use it. */
export async function hnswSearch(ctx: PostgresStoreContext, vector: number[], limit: number, filters: Filter | undefined, visibleTo: string | undefined, efSearch: number): Promise<SearchHit[]> {
  const { type: vectorType, cosine } = pgvectorOf(ctx);
  const typed = `${vectorType}(${vector.length})`;
  const params: SqlValue[] = [vectorLiteral(vector), limit];
  const where = postgresConditions(filters, visibleTo, params);
  const rows = await ctx.db.transaction(async (tx) => {
    await tx.execute(`SET LOCAL hnsw.ef_search = ${efSearch}`);
    // pgvector 0.8: keep scanning the graph while a filter rejects candidates.
    if (ctx.iterativeScan) await tx.execute(`SET LOCAL hnsw.iterative_scan = strict_order`);
    return tx.query<ChunkRow & { score: number | string }>(
      `SELECT ${HIT_COLUMNS}, (embedding::${typed} ${cosine} $1::${typed}) AS score
         FROM ${ctx.t}_chunks WHERE embedding IS NOT NULL ${where} ORDER BY embedding::${typed} ${cosine} $1::${typed} LIMIT $2`,
      params,
    );
  });
  return rows.map((r) => toHit(r, cosineSimilarity(Number(r.score))));
}
