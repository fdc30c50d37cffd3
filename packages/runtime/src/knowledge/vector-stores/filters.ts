/**
 * @module knowledge/vector-stores/filters
 * The keyword-query tokens both stores build their full-text queries from (user text never
 * reaches MATCH or to_tsquery raw). Metadata filters are in filter-language.ts.
 */

/** Word tokens of a query, deduplicated; punctuation and operators are dropped. */
export function queryTokens(query: string): string[] {
  const tokens = query.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(tokens)].slice(0, 64);
}
