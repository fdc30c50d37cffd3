/**
 * @module knowledge/readers/sources/providers/searxng
 * SearXNG's search API: `GET {base}/search?q=...&format=json&pageno=1` answers
 * `{query, number_of_results, results: [{url, title, content, engine, engines, score,
 * category, publishedDate, ...}], answers, corrections, infoboxes, suggestions,
 * unresponsive_engines}`. An instance answers 403 to `format=json` unless `json` is listed in
 * `search.formats` of its settings.yml; that refusal is reported as such. No key.
 */
import { RuntimeError } from '../../../../errors.js';
import type { SourceContext } from '../source-reader.js';
import { asRecord, callJson, optionalString } from './service.js';
import { usableResults, type SearchProvider, type SearchResult } from './search-provider.js';

export class SearxngProvider implements SearchProvider {
  readonly id = 'searxng';

  constructor(private readonly baseUrl: string) {}

  async search(query: string, maxResults: number, context: SourceContext): Promise<SearchResult[]> {
    const endpoint = `${this.baseUrl}/search?${new URLSearchParams({ q: query, format: 'json', pageno: '1' }).toString()}`;
    let body: unknown;
    try {
      body = await callJson(context, endpoint, { service: 'SearXNG' }, { headers: { accept: 'application/json' } });
    } catch (error) {
      if (RuntimeError.isInstance(error) && /answered HTTP 403/.test(error.message)) {
        throw new RuntimeError('BAD_REQUEST', 'SearXNG answered HTTP 403 to a JSON search: enable the json format (search.formats in its settings.yml)', { cause: error });
      }
      throw error;
    }
    const results = asRecord(body, 'the search answer', 'SearXNG').results;
    return usableResults(
      (Array.isArray(results) ? (results as unknown[]) : []).flatMap((item): SearchResult[] => {
        if (typeof item !== 'object' || item === null) return [];
        const r = item as Record<string, unknown>;
        const url = optionalString(r.url);
        if (!url) return [];
        return [
          {
            url,
            title: optionalString(r.title) ?? url,
            snippet: optionalString(r.content) ?? '',
            engine: optionalString(r.engine),
            publishedDate: optionalString(r.publishedDate),
          },
        ];
      }),
      maxResults,
    );
  }
}
