/**
 * @module knowledge/vector-stores/filters
 * The keyword-query tokens both stores build their full-text queries from.
 *
 * User text never reaches MATCH or to_tsquery raw. Metadata filters are in filter-language.ts.
 */

/**
 * English function words. BM25 gives a word found in nearly every chunk almost no weight, but
 * matching it still scores every such chunk: on the bench's 100k chunks one word found in a
 * fifth of them took keyword p50 from 2 to 16 ms, and "the" is in nearly all of a real corpus.
 */
const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it its me my no not of on ' +
    'or our she so than that the their them then there these they this those to us was we were what when where which who why will with would you your'
  ).split(' '),
);

/**
 * Word tokens of a query, deduplicated; punctuation and operators are dropped, and so are
 * English function words unless the query has nothing else ("the who" still searches).
 */
export function queryTokens(query: string): string[] {
  const tokens = [...new Set(query.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  const content = tokens.filter((t) => !STOPWORDS.has(t));
  return (content.length > 0 ? content : tokens).slice(0, 64);
}
