/**
 * @module knowledge/readers/sources/providers/search-provider
 * A web search service as the web_search reader sees it: a query in, ranked results out
 * (title, url, snippet). Each adapter is a file of its own (searxng, tavily); which one is used
 * is a setting (WEB_SEARCH_PROVIDER, or the first configured).
 */
import type { SourceContext } from '../source-reader.js';

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
  /** The engine that found it, when the service says (SearXNG aggregates several). */
  engine?: string | undefined;
  publishedDate?: string | undefined;
}

export interface SearchProvider {
  /** `searxng`, `tavily`: recorded as `search_engine` on the documents. */
  readonly id: string;
  search(query: string, maxResults: number, context: SourceContext): Promise<SearchResult[]>;
}

/** Results worth keeping: an http(s) URL, each once, at most `max`. */
export function usableResults(results: readonly SearchResult[], max: number): SearchResult[] {
  const seen = new Set<string>();
  const out: SearchResult[] = [];
  for (const r of results) {
    let url: URL;
    try {
      url = new URL(r.url);
    } catch {
      continue;
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || seen.has(url.href)) continue;
    seen.add(url.href);
    out.push({ ...r, url: url.href });
    if (out.length >= max) break;
  }
  return out;
}
