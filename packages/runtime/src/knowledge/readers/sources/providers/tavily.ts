/**
 * @module knowledge/readers/sources/providers/tavily
 * Tavily's search API: `POST {base}/search` with `Authorization: Bearer tvly-...` and
 * `{query, max_results, search_depth: "basic", include_answer: false, include_raw_content:
 * false}` answers `{query, answer, images, results: [{title, url, content, score,
 * raw_content}], response_time}`; a bad key is 401 with `{detail: {error}}`.
 */
import { badRequest } from '../../../../errors.js';
import type { SourceContext } from '../source-reader.js';
import { asRecord, callJson, optionalString } from './service.js';
import { usableResults, type SearchProvider, type SearchResult } from './search-provider.js';

export class TavilyProvider implements SearchProvider {
  readonly id = 'tavily';

  constructor(
    private readonly apiKey: string | undefined,
    private readonly baseUrl: string,
  ) {}

  async search(query: string, maxResults: number, context: SourceContext): Promise<SearchResult[]> {
    if (!this.apiKey) throw badRequest('The web_search reader uses Tavily (WEB_SEARCH_PROVIDER=tavily) but TAVILY_API_KEY is not set');
    const body = await callJson(
      context,
      `${this.baseUrl}/search`,
      { service: 'Tavily', authHint: 'check TAVILY_API_KEY', secrets: [this.apiKey] },
      {
        method: 'POST',
        headers: { authorization: `Bearer ${this.apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query, max_results: maxResults, search_depth: 'basic', include_answer: false, include_raw_content: false }),
      },
    );
    const results = asRecord(body, 'the search answer', 'Tavily').results;
    return usableResults(
      (Array.isArray(results) ? (results as unknown[]) : []).flatMap((item): SearchResult[] => {
        if (typeof item !== 'object' || item === null) return [];
        const r = item as Record<string, unknown>;
        const url = optionalString(r.url);
        if (!url) return [];
        return [{ url, title: optionalString(r.title) ?? url, snippet: optionalString(r.content) ?? '', publishedDate: optionalString(r.published_date) }];
      }),
      maxResults,
    );
  }
}
