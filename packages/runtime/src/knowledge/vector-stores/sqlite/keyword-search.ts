/**
 * @module knowledge/vector-stores/sqlite/keyword-search
 * The SQLite store's keyword search: FTS5 BM25, on a reader thread for large stores.
 *
 * Over the query's tokens, each quoted so FTS5 syntax in user text is inert, OR-ed so a chunk
 * ranks by how many it matches. A large store (one with an IVF index) runs it on its reader
 * thread (reader-thread.ts), beside a hybrid search's vector side and off the event loop.
 */
import type { ChunkScope } from '../chunk-scope.js';
import type { Filter } from '../filter-language.js';
import { sqliteConditions } from '../filter-sql.js';
import { queryTokens } from '../filters.js';
import { toHit, type ChunkRow } from '../hits.js';
import type { SearchHit } from '../vector-store.js';
import type { SqliteStoreContext } from './context.js';
import { visible } from './staging.js';

interface Row extends ChunkRow {
  meta_data: string;
  score: number;
}

/** Keyword candidates taken from the FTS index before the filter: max(min, perResult x limit). */
const KEYWORD_CANDIDATES_PER_RESULT = 4;
const KEYWORD_CANDIDATES_MIN = 40;

export function keywordSearch(ctx: SqliteStoreContext, query: string, limit: number, filter: Filter | undefined, visibleTo: ChunkScope | undefined): SearchHit[] | Promise<SearchHit[]> {
  const tokens = queryTokens(query);
  if (tokens.length === 0) return [];
  const t = ctx.t;
  const match = tokens.map((tok) => `"${tok}"`).join(' OR ');
  const where = sqliteConditions(filter, visibleTo);
  // First the best-ranked matches from the FTS index alone (FTS5 orders by `rank` itself and
  // reads no chunk row), then visibility and filter on those only: a common word matches
  // ~20k of 100k chunks, and joining every match to its chunk row before ranking made p99
  // 58-81 ms; this is ~15 ms. Fewer than `limit` survivors: the full query below.
  const candidates = Math.max(KEYWORD_CANDIDATES_MIN, KEYWORD_CANDIDATES_PER_RESULT * limit);
  const top = `SELECT c.chunk_id, c.content_id, c.name, c.content, c.meta_data, f.score
      FROM (SELECT rowid, rank AS score FROM ${t}_fts WHERE ${t}_fts MATCH ? ORDER BY rank LIMIT ?) f
      JOIN ${t}_chunks c ON c.rowid = f.rowid
      WHERE ${visible(t, ctx.staged)} ${where.sql} ORDER BY f.score LIMIT ?`;
  const full = `SELECT c.chunk_id, c.content_id, c.name, c.content, c.meta_data, bm25(${t}_fts) AS score
      FROM ${t}_fts f JOIN ${t}_chunks c ON c.rowid = f.rowid
      WHERE ${t}_fts MATCH ? AND ${visible(t, ctx.staged)} ${where.sql} ORDER BY score LIMIT ?`;
  const first = { sql: top, params: [match, candidates, ...where.params, limit] };
  const fallback = { sql: full, params: [match, ...where.params, limit] };
  const here = () =>
    ctx.run((db) => {
      const rows = db.prepare(first.sql).all(...first.params) as Row[];
      return rows.length >= limit ? rows : (db.prepare(fallback.sql).all(...fallback.params) as Row[]);
    });
  // bm25() is negative, lower is better; r/(1+r) maps it into [0, 1).
  const hits = (rows: Row[]) => rows.map((r) => toHit(r, -r.score / (1 - r.score)));
  const reader = ctx.reader;
  if (reader && ctx.run((db) => ctx.ivf.ready(db))) return reader.query<Row>(first, fallback, limit).then((rows) => hits(rows ?? here()));
  return hits(here());
}
