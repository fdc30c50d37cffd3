/**
 * @module knowledge/readers/sources/web-search
 * `web_search`: a search query (the `topic`) run on a search service, each result one document
 * (title and snippet; `url`, `title`, `snippet`, `rank`, `query`, `search_engine` metadata).
 * With `reader_options.fetch_pages` each result page is fetched too and read by the reader its
 * content type picks; a page that cannot be fetched keeps its snippet, with a note.
 *
 * Settings: WEB_SEARCH_PROVIDER (`searxng` or `tavily`; default the first configured),
 * SEARXNG_BASE_URL, TAVILY_API_KEY (+ TAVILY_BASE_URL), WEB_SEARCH_MAX_RESULTS (default 5).
 * SSRF: the search API is the operator's (its host may be internal: a SearXNG on the LAN);
 * result pages come from the web, so they are fetched under the knowledge base's rules.
 */
import { badRequest, RuntimeError, unprocessable } from '../../../errors.js';
import type { Document, ReaderInput } from '../../types.js';
import { SearxngProvider } from './providers/searxng.js';
import type { SearchProvider, SearchResult } from './providers/search-provider.js';
import { TavilyProvider } from './providers/tavily.js';
import { chunkersWithDefault } from '../reader.js';
import { knownOptions, optionalBool, optionalInt, refuseBytes, type SourceContext, type SourceInput, type SourceReader, type SourceResult } from './source-reader.js';
import type { WebSearchSettings } from '../../../settings/sources.js';

/** The most one result page may add; the knowledge limit applies to all pages together. */
const MAX_PAGE_BYTES = 2 * 1024 * 1024;
const MAX_QUERY_CHARS = 1000;

export class WebSearchReader implements SourceReader {
  readonly id = 'web_search';
  readonly name = 'WebSearchReader';
  readonly description = 'Searches the web for a topic (SearXNG or Tavily), one document per result, optionally with the page itself';
  readonly chunkers = chunkersWithDefault('FixedSizeChunker');
  readonly contentTypes = ['url', 'text'] as const;
  readonly source = 'topic';
  private readonly provider: SearchProvider | undefined;

  constructor(
    private readonly settings: WebSearchSettings = { provider: undefined, searxngBaseUrl: undefined, tavilyApiKey: undefined, tavilyBaseUrl: 'https://api.tavily.com', maxResults: 5 },
    provider?: SearchProvider,
  ) {
    this.provider =
      provider ??
      (settings.provider === 'searxng' && settings.searxngBaseUrl
        ? new SearxngProvider(settings.searxngBaseUrl)
        : settings.provider === 'tavily'
          ? new TavilyProvider(settings.tavilyApiKey, settings.tavilyBaseUrl)
          : undefined);
  }

  read(input: ReaderInput): Promise<Document[]> {
    return Promise.reject(refuseBytes(this, input));
  }

  check(input: SourceInput): { topic: string } {
    const topic = input.topic?.trim();
    if (!topic) throw badRequest('The web_search reader needs a topic: the search query');
    if (topic.length > MAX_QUERY_CHARS) throw badRequest(`web_search reader: the query is longer than ${MAX_QUERY_CHARS} characters`);
    knownOptions(input.options, this.id, ['max_results', 'fetch_pages']);
    optionalInt(input.options, 'max_results', this.id, 1, 20);
    optionalBool(input.options, 'fetch_pages', this.id);
    return { topic };
  }

  async readSource(input: SourceInput, context: SourceContext): Promise<SourceResult> {
    const { topic } = this.check(input);
    const maxResults = optionalInt(input.options, 'max_results', this.id, 1, 20) ?? this.settings.maxResults;
    const fetchPages = optionalBool(input.options, 'fetch_pages', this.id) ?? false;
    if (!this.provider) {
      if (this.settings.provider === 'searxng') throw badRequest('The web_search reader uses SearXNG (WEB_SEARCH_PROVIDER=searxng) but SEARXNG_BASE_URL is not set');
      throw badRequest('The web_search reader has no search provider: set SEARXNG_BASE_URL (a SearXNG instance) or TAVILY_API_KEY, and WEB_SEARCH_PROVIDER to choose one');
    }
    const results = await this.provider.search(topic, maxResults, context);
    if (results.length === 0) throw unprocessable(`web_search reader: ${this.provider.id} found nothing for "${topic}"`);
    const notes: string[] = [];
    let budget = context.maxBytes;
    const documents: Document[] = [];
    for (const [i, result] of results.entries()) {
      let content = summary(result);
      if (fetchPages && budget > 0) {
        try {
          const page = await this.readPage(result, context, Math.min(budget, MAX_PAGE_BYTES));
          budget -= page.bytes;
          if (page.text) content = page.text;
        } catch (error) {
          if (!RuntimeError.isInstance(error) || context.signal?.aborted) throw error;
          notes.push(`${result.url}: ${error.message} (its snippet was kept)`);
        }
      }
      if (content.trim() === '') continue;
      documents.push({
        content,
        name: input.name ?? result.title,
        id: result.url,
        meta_data: {
          url: result.url,
          title: result.title,
          snippet: result.snippet,
          rank: i + 1,
          query: topic,
          source: 'web_search',
          search_engine: result.engine ? `${this.provider.id}:${result.engine}` : this.provider.id,
          ...(result.publishedDate ? { published: result.publishedDate } : {}),
        },
      });
    }
    if (documents.length === 0) throw unprocessable(`web_search reader: the results for "${topic}" have no text`);
    return { parts: [{ documents, reader: this }], title: topic, notes };
  }

  private async readPage(result: SearchResult, context: SourceContext, maxBytes: number): Promise<{ text: string; bytes: number }> {
    const fetched = await context.fetch(result.url, { maxBytes });
    const file = new URL(fetched.url).pathname.split('/').pop() || '';
    const reader = context.readers.forMimeType(fetched.mimeType) ?? context.readers.forFile(file || 'index.html');
    const docs = await reader.read({ data: fetched.body, name: file || result.title }, { signal: context.signal });
    return {
      text: docs
        .map((d) => d.content)
        .join('\n\n')
        .trim(),
      bytes: fetched.body.byteLength,
    };
  }
}

function summary(result: SearchResult): string {
  return [result.title, result.snippet].filter((t) => t.trim() !== '').join('\n\n');
}
