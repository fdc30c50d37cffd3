/**
 * @module knowledge/vector-stores/postgres/keyword-search
 * The PostgreSQL store's keyword search: OR-ed `to_tsquery` ranked by `ts_rank_cd`.
 *
 * The query's tokens against the generated `tsvector` (GIN-indexed), filtered and scoped in the
 * same query.
 */
import type { ChunkScope } from '../chunk-scope.js';
import type { SqlValue } from '../../../storage/db.js';
import type { Filter } from '../filter-language.js';
import { postgresConditions } from '../filter-sql.js';
import { queryTokens } from '../filters.js';
import { HIT_COLUMNS, toHit, type ChunkRow } from '../hits.js';
import type { SearchHit } from '../vector-store.js';
import type { PostgresStoreContext } from './context.js';

export async function keywordSearch(ctx: PostgresStoreContext, query: string, limit: number, filters: Filter | undefined, visibleTo: ChunkScope | undefined): Promise<SearchHit[]> {
  const tokens = queryTokens(query);
  if (tokens.length === 0) return [];
  // Tokens are letters and digits only, so joining them with `|` is a safe OR query.
  const params: SqlValue[] = [tokens.join(' | '), limit];
  const where = postgresConditions(filters, visibleTo, params);
  const rows = await ctx.db.query<ChunkRow & { score: number | string }>(
    `SELECT ${HIT_COLUMNS}, ts_rank_cd(fts, q) AS score
       FROM ${ctx.t}_chunks, to_tsquery('${ctx.language}', $1) q
       WHERE fts @@ q ${where} ORDER BY score DESC, chunk_id LIMIT $2`,
    params,
  );
  // agno's normalisation of ts_rank_cd: r / (r + 0.1).
  return rows.map((r) => toHit(r, Number(r.score) / (Number(r.score) + 0.1)));
}
