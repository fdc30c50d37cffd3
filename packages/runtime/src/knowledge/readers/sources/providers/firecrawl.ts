/**
 * @module knowledge/readers/sources/providers/firecrawl
 * Firecrawl's REST API (v2, also served by self-hosted Firecrawl), the part the crawler reader
 * uses: `POST /v2/scrape` `{url, formats: ["markdown"], onlyMainContent}` answers
 * `{success, data: {markdown, metadata: {title, sourceURL, url, statusCode, error}}}`;
 * `POST /v2/crawl` `{url, limit, scrapeOptions}` answers `{success, id, url}`, and
 * `GET /v2/crawl/{id}` answers `{status: scraping|completed|failed, total, completed,
 * creditsUsed, expiresAt, next, data: [...]}` where `next` pages the data of a large crawl.
 * Errors are `{success: false, error}` with 401 (key), 402 (credits), 429 (rate), 5xx.
 * Authentication is `Authorization: Bearer <key>`; a self-hosted instance may need none.
 */
import { badRequest, RuntimeError } from '../../../../errors.js';
import { pause, type SourceContext } from '../source-reader.js';
import { asRecord, callJson, optionalString, type ServiceCall } from './service.js';

export interface FirecrawlOptions {
  baseUrl: string;
  apiKey: string | undefined;
  pollIntervalMs: number;
  crawlTimeoutMs: number;
}

export interface ScrapedPage {
  url: string;
  /** Where Firecrawl ended up after redirects (`metadata.url`), when it says. */
  landed: string | undefined;
  title: string | undefined;
  markdown: string;
  /** The HTTP status the page answered Firecrawl with, when it says. */
  statusCode: number | undefined;
  error: string | undefined;
}

/** Scrapes can take a while (Firecrawl renders pages); its own default timeout is 30 s. */
const SCRAPE_TIMEOUT_MS = 90_000;

export class FirecrawlClient {
  private readonly call: ServiceCall;

  constructor(private readonly options: FirecrawlOptions) {
    this.call = { service: 'Firecrawl', authHint: 'check FIRECRAWL_API_KEY', secrets: [options.apiKey] };
  }

  private headers(): Record<string, string> {
    return { 'content-type': 'application/json', accept: 'application/json', ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}) };
  }

  async scrape(url: string, context: SourceContext): Promise<ScrapedPage> {
    const body = await callJson(context, `${this.options.baseUrl}/v2/scrape`, this.call, {
      method: 'POST',
      headers: this.headers(),
      body: JSON.stringify({ url, formats: ['markdown'], onlyMainContent: true }),
      timeoutMs: SCRAPE_TIMEOUT_MS,
    });
    const answer = asRecord(body, 'the scrape answer', 'Firecrawl');
    if (answer.success === false) throw badRequest(`Firecrawl could not scrape ${url}: ${optionalString(answer.error) ?? 'no reason given'}`);
    return toPage(asRecord(answer.data, 'data', 'Firecrawl'), url);
  }

  /** Starts a crawl, waits for it to finish (polling), and returns every page it read. */
  async crawl(url: string, limit: number, context: SourceContext): Promise<ScrapedPage[]> {
    const started = asRecord(
      await callJson(context, `${this.options.baseUrl}/v2/crawl`, this.call, {
        method: 'POST',
        headers: this.headers(),
        body: JSON.stringify({ url, limit, scrapeOptions: { formats: ['markdown'], onlyMainContent: true } }),
      }),
      'the crawl answer',
      'Firecrawl',
    );
    const id = optionalString(started.id);
    if (started.success === false || !id) throw badRequest(`Firecrawl did not start a crawl of ${url}: ${optionalString(started.error) ?? 'no job id in its answer'}`);
    const deadline = Date.now() + this.options.crawlTimeoutMs;
    let status = asRecord(await this.status(`${this.options.baseUrl}/v2/crawl/${encodeURIComponent(id)}`, context), 'the crawl status', 'Firecrawl');
    while (status.status === 'scraping') {
      if (Date.now() >= deadline) {
        throw new RuntimeError('SERVICE_UNAVAILABLE', `Firecrawl's crawl of ${url} did not finish within ${Math.round(this.options.crawlTimeoutMs / 1000)} s (FIRECRAWL_CRAWL_TIMEOUT_SECONDS)`);
      }
      await pause(this.options.pollIntervalMs, context.signal);
      status = asRecord(await this.status(`${this.options.baseUrl}/v2/crawl/${encodeURIComponent(id)}`, context), 'the crawl status', 'Firecrawl');
    }
    if (status.status !== 'completed') throw badRequest(`Firecrawl's crawl of ${url} ended ${String(status.status ?? 'without a status')}${optionalString(status.error) ? `: ${String(status.error)}` : ''}`);
    const pages: ScrapedPage[] = [];
    // A large crawl's data comes in pages linked by `next`; follow it only within the service.
    for (let page = status, hops = 0; ; hops++) {
      for (const item of Array.isArray(page.data) ? page.data : []) pages.push(toPage(asRecord(item, 'a crawled page', 'Firecrawl'), url));
      const next = optionalString(page.next);
      if (!next || hops >= 100) break;
      if (new URL(next, this.options.baseUrl).origin !== new URL(this.options.baseUrl).origin) {
        throw new RuntimeError('SERVICE_UNAVAILABLE', 'Firecrawl pointed the rest of the crawl data at another origin; it was not followed');
      }
      page = asRecord(await this.status(new URL(next, this.options.baseUrl).href, context), 'the crawl status', 'Firecrawl');
    }
    return pages;
  }

  private status(url: string, context: SourceContext): Promise<unknown> {
    return callJson(context, url, this.call, { headers: this.headers() });
  }
}

function toPage(data: Record<string, unknown>, requested: string): ScrapedPage {
  const metadata = typeof data.metadata === 'object' && data.metadata !== null ? (data.metadata as Record<string, unknown>) : {};
  const statusCode = typeof metadata.statusCode === 'number' ? metadata.statusCode : undefined;
  return {
    url: optionalString(metadata.sourceURL) ?? optionalString(metadata.url) ?? requested,
    landed: optionalString(metadata.url),
    title: optionalString(metadata.title) ?? optionalString(metadata.ogTitle),
    markdown: typeof data.markdown === 'string' ? data.markdown : '',
    statusCode,
    error: optionalString(metadata.error),
  };
}
