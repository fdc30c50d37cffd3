/**
 * @module knowledge/readers/crawler
 * `crawler`: a hosted crawling service (Firecrawl) reads the page for us, rendering JavaScript
 * and returning markdown. `reader_options.mode` is `scrape` (one page, the default) or `crawl`
 * (the site, up to `limit` pages); one document per page, with `url` and `title` metadata.
 *
 * Settings: FIRECRAWL_API_KEY (required for the hosted service), FIRECRAWL_BASE_URL (a
 * self-hosted Firecrawl, which may run without a key). SSRF: the API is the operator's (its
 * host may be internal), but the URL to crawl is the caller's, so it is checked against the
 * knowledge base's address rules before it is handed over: a crawler inside the network would
 * otherwise fetch internal pages on the caller's behalf.
 */
import { badRequest, unprocessable } from '../errors.js';
import { parseUrl } from '../fetch/safe-fetch.js';
import type { Document, ReaderInput } from '../types.js';
import { FirecrawlClient, type ScrapedPage } from './providers/firecrawl.js';
import {
  chunkersWithDefault,
  knownOptions,
  optionalEnum,
  optionalInt,
  refuseBytes,
  type SourceContext,
  type SourceInput,
  type SourceReader,
  type SourceResult,
} from './reader.js';
import type { FirecrawlSettings } from './source-settings.js';

const MODES = ['scrape', 'crawl'] as const;

export class CrawlerReader implements SourceReader {
  readonly id = 'crawler';
  readonly name = 'CrawlerReader';
  readonly description = 'Reads a page (scrape) or a site (crawl) as markdown through a hosted crawling service (Firecrawl)';
  readonly chunkers = chunkersWithDefault('FixedSizeChunker');
  readonly contentTypes = ['url'] as const;
  readonly source = 'url';

  constructor(
    private readonly settings: FirecrawlSettings = {
      apiKey: undefined,
      baseUrl: 'https://api.firecrawl.dev',
      customBaseUrl: false,
      pollIntervalMs: 2000,
      crawlTimeoutMs: 300_000,
      crawlLimit: 10,
    },
  ) {}

  read(input: ReaderInput): Promise<Document[]> {
    return Promise.reject(refuseBytes(this, input));
  }

  check(input: SourceInput): { url: string } {
    if (input.url === undefined) throw badRequest('The crawler reader needs a url');
    knownOptions(input.options, this.id, ['mode', 'limit']);
    optionalEnum(input.options, 'mode', this.id, MODES);
    optionalInt(input.options, 'limit', this.id, 1, 1000);
    return { url: parseUrl(input.url).href };
  }

  async readSource(input: SourceInput, context: SourceContext): Promise<SourceResult> {
    const { url } = this.check(input);
    const mode = optionalEnum(input.options, 'mode', this.id, MODES) ?? 'scrape';
    const limit = optionalInt(input.options, 'limit', this.id, 1, 1000) ?? this.settings.crawlLimit;
    if (!this.settings.apiKey && !this.settings.customBaseUrl) {
      throw badRequest('The crawler reader is not configured: set FIRECRAWL_API_KEY (or FIRECRAWL_BASE_URL for a self-hosted Firecrawl)');
    }
    await context.checkUrl(url);
    const client = new FirecrawlClient(this.settings);
    const notes: string[] = [];
    let pages: ScrapedPage[];
    if (mode === 'scrape') {
      const page = await client.scrape(url, context);
      const failure = pageFailure(page);
      if (failure) throw badRequest(`crawler reader: ${failure}`);
      pages = [page];
    } else {
      pages = [];
      for (const page of await client.crawl(url, limit, context)) {
        const failure = pageFailure(page);
        if (failure) notes.push(failure);
        else if (page.markdown.trim() === '') notes.push(`${page.url}: no text`);
        else pages.push(page);
      }
    }
    if (pages.every((p) => p.markdown.trim() === '')) {
      throw unprocessable(`crawler reader: Firecrawl found no text at ${url}${notes.length > 0 ? ` (${notes[0]})` : ''}`);
    }
    const documents: Document[] = pages.map((page, i) => ({
      content: page.markdown.trim(),
      name: input.name ?? page.title ?? page.url,
      // Pages of a crawl are told apart by their own URL; a repeat gets its position.
      id: pages.findIndex((p) => p.url === page.url) === i ? page.url : `${page.url}#${i + 1}`,
      meta_data: { url: page.url, ...(page.title ? { title: page.title } : {}) },
    }));
    return { parts: [{ documents, reader: this }], title: pages[0]!.title, notes };
  }
}

/** Why a page Firecrawl returned is not content: the site answered it with an error. */
function pageFailure(page: ScrapedPage): string | undefined {
  if (page.statusCode !== undefined && page.statusCode >= 400) return `${page.url} answered HTTP ${page.statusCode}${page.error ? ` (${page.error})` : ''}`;
  return undefined;
}
