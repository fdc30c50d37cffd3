/**
 * @module knowledge/readers/sources/crawler
 * `crawler`: a hosted crawling service (Firecrawl) reads the page for us, rendering JavaScript
 * and returning markdown. `reader_options.mode` is `scrape` (one page, the default) or `crawl`
 * (the site, up to `limit` pages); one document per page, with `url` and `title` metadata. A
 * crawl is a collection: through the HTTP API each page is a child record of the site's record.
 *
 * Settings: FIRECRAWL_API_KEY (required for the hosted service), FIRECRAWL_BASE_URL (a
 * self-hosted Firecrawl, which may run without a key). SSRF: the API is the operator's (its
 * host may be internal), but the URL to crawl is the caller's, so it is checked against the
 * knowledge base's address rules before it is handed over: a crawler inside the network would
 * otherwise fetch internal pages on the caller's behalf. Firecrawl follows links and redirects
 * itself, which this cannot stop; so every page it returns is checked the same way (its URL and
 * where it landed) and one the rules refuse is not ingested (a failed child of a crawl; a
 * scrape fails).
 */
import { createHash } from 'node:crypto';
import { badRequest, RuntimeError, unprocessable } from '../../../errors.js';
import { parseUrl } from '../../../net/safe-fetch.js';
import type { Document, ReaderInput } from '../../types.js';
import { FirecrawlClient, type ScrapedPage } from './providers/firecrawl.js';
import { chunkersWithDefault } from '../reader.js';
import { knownOptions, optionalEnum, optionalInt, refuseBytes, type CollectionReader, type FailedChild, type SourceChild, type SourceContext, type SourceInput, type SourceResult } from './source-reader.js';
import { readWholeCollection } from './collection.js';
import type { FirecrawlSettings } from '../../../settings/sources.js';

const MODES = ['scrape', 'crawl'] as const;

export class CrawlerReader implements CollectionReader {
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

  /** A crawl is a collection of pages; a scrape is one page. */
  isCollection(input: SourceInput): boolean {
    this.check(input);
    return optionalEnum(input.options, 'mode', this.id, MODES) === 'crawl';
  }

  async readSource(input: SourceInput, context: SourceContext): Promise<SourceResult> {
    const { url } = this.check(input);
    if (this.isCollection(input)) {
      const notes: string[] = [];
      return readWholeCollection(this.children(input, context, notes), context, notes, {
        name: input.name,
        empty: () => unprocessable(`crawler reader: Firecrawl found no text at ${url}${notes.length > 0 ? ` (${notes[0]})` : ''}`),
      });
    }
    const client = await this.client(url, context);
    const page = await client.scrape(url, context);
    await vetPage(page, context, new Map());
    const failure = pageFailure(page);
    if (failure) throw badRequest(`crawler reader: ${failure}`);
    if (page.markdown.trim() === '') throw unprocessable(`crawler reader: Firecrawl found no text at ${url}`);
    return { parts: [{ documents: [this.document(page, input.name)], reader: this }], title: page.title, notes: [] };
  }

  /** The pages of a crawl, one child each; a page the site answered with an error is a failed child. */
  async *children(input: SourceInput, context: SourceContext, notes: string[] = []): AsyncIterable<SourceChild | FailedChild> {
    const { url } = this.check(input);
    const limit = optionalInt(input.options, 'limit', this.id, 1, 1000) ?? this.settings.crawlLimit;
    const client = await this.client(url, context);
    const seen = new Set<string>();
    const hosts = new Map<string, Promise<unknown>>();
    for (const page of await client.crawl(url, limit, context)) {
      // A page Firecrawl returned twice is one child.
      if (seen.has(page.url)) continue;
      seen.add(page.url);
      try {
        await vetPage(page, context, hosts);
      } catch (error) {
        if (!RuntimeError.isInstance(error) || context.signal?.aborted) throw error;
        yield { key: page.url, name: page.url, error };
        continue;
      }
      const failure = pageFailure(page);
      if (failure) {
        yield { key: page.url, name: page.url, error: badRequest(failure) };
        continue;
      }
      if (page.markdown.trim() === '') {
        notes.push(`${page.url}: no text`);
        continue;
      }
      const document = this.document(page, input.name);
      const hash = createHash('sha256').update(document.content).digest('hex');
      yield { key: page.url, name: page.title ?? page.url, read: () => Promise.resolve({ documents: [document], reader: this, hash }) };
    }
  }

  private async client(url: string, context: SourceContext): Promise<FirecrawlClient> {
    if (!this.settings.apiKey && !this.settings.customBaseUrl) {
      throw badRequest('The crawler reader is not configured: set FIRECRAWL_API_KEY (or FIRECRAWL_BASE_URL for a self-hosted Firecrawl)');
    }
    await context.checkUrl(url);
    return new FirecrawlClient(this.settings);
  }

  private document(page: ScrapedPage, name: string | undefined): Document {
    return { content: page.markdown.trim(), name: name ?? page.title ?? page.url, id: page.url, meta_data: { url: page.url, ...(page.title ? { title: page.title } : {}) } };
  }
}

/**
 * Refuses a page whose URL, or the URL it landed on, the knowledge base's address rules refuse.
 * The verdict depends on the scheme and authority only, so each is checked once per read (`hosts`).
 */
async function vetPage(page: ScrapedPage, context: SourceContext, hosts: Map<string, Promise<unknown>>): Promise<void> {
  for (const url of new Set([page.url, page.landed ?? page.url])) {
    let key: string;
    try {
      const parsed = new URL(url);
      key = `${parsed.protocol}//${parsed.username}:${parsed.password}@${parsed.host}`;
    } catch {
      key = url;
    }
    let verdict = hosts.get(key);
    if (!verdict) {
      verdict = context.checkUrl(url);
      hosts.set(key, verdict);
    }
    await verdict;
  }
}

/** Why a page Firecrawl returned is not content: the site answered it with an error. */
function pageFailure(page: ScrapedPage): string | undefined {
  if (page.statusCode !== undefined && page.statusCode >= 400) return `${page.url} answered HTTP ${page.statusCode}${page.error ? ` (${page.error})` : ''}`;
  return undefined;
}
