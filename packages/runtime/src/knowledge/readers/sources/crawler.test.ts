/**
 * @module knowledge/readers/sources/crawler.test
 * The crawler reader hands fetching to Firecrawl, which follows links and redirects on its own;
 * so every page it returns is checked against the knowledge base's address rules (its URL and
 * where it landed), and one they refuse is never ingested. Firecrawl is a fake context here;
 * the check is the real checkUrl with a test resolver.
 */
import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../../../errors.js';
import { checkUrl, type FetchedResource, type HostResolver } from '../../../net/safe-fetch.js';
import { CrawlerReader } from './crawler.js';
import type { FailedChild, SourceChild, SourceContext } from './source-reader.js';

const HOSTS: Record<string, string> = {
  'site.example': '93.184.216.34',
  'docs.example': '192.0.2.10',
  'bench.example': '198.18.0.7',
  'nat.example': '64:ff9b::a00:1',
};

const resolved: string[] = [];
const resolve: HostResolver = async (hostname) => {
  resolved.push(hostname);
  const address = HOSTS[hostname];
  if (!address) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return [{ address, family: address.includes(':') ? 6 : 4 }];
};

const page = (sourceURL: string, markdown: string, landed?: string) => ({ markdown, metadata: { sourceURL, ...(landed ? { url: landed } : {}), title: markdown.slice(2, 12), statusCode: 200 } });

const json = (url: string, body: unknown): FetchedResource => ({ url, status: 200, mimeType: 'application/json', body: new TextEncoder().encode(JSON.stringify(body)), headers: {}, remoteAddress: undefined });

/** A Firecrawl that answers a scrape with `scrape` and a crawl with `crawl`; never a network. */
function context(answers: { scrape?: unknown; crawl?: unknown[] }): SourceContext & { asked: string[] } {
  const asked: string[] = [];
  const fetchService = async (url: string): Promise<FetchedResource> => {
    asked.push(new URL(url).pathname);
    if (url.endsWith('/v2/scrape')) return json(url, { success: true, data: answers.scrape });
    if (url.endsWith('/v2/crawl')) return json(url, { success: true, id: 'c-1' });
    return json(url, { status: 'completed', data: answers.crawl ?? [] });
  };
  return {
    asked,
    fetch: () => Promise.reject(new Error('the crawler reader fetches nothing itself')),
    fetchService,
    checkUrl: (url) => checkUrl(url, { resolve }),
    readers: undefined as never,
    maxBytes: 1_000_000,
    signal: undefined,
  };
}

const reader = new CrawlerReader({ apiKey: 'fc-test', baseUrl: 'https://firecrawl.example', customBaseUrl: false, pollIntervalMs: 1, crawlTimeoutMs: 5000, crawlLimit: 10 });

describe('CrawlerReader: the pages Firecrawl returns are vetted too', () => {
  it('refuses a crawled page whose URL, or where it landed, is not global unicast: a failed child naming the class', async () => {
    resolved.length = 0;
    const ctx = context({
      crawl: [
        page('https://site.example/', '# Lighthouse keeping'),
        page('https://site.example/a', '# Internal API docs', 'https://docs.example/a'),
        page('https://bench.example/b', '# Benchmark rig'),
        page('https://nat.example/c', '# Translated'),
        page('http://[2002:7f00:1::1]/d', '# Tunnelled'),
        page('https://site.example/e', '# Keeper log'),
      ],
    });
    const children: (SourceChild | FailedChild)[] = [];
    for await (const child of reader.children({ url: 'https://site.example/', options: { mode: 'crawl' } }, ctx)) children.push(child);
    const outcome = children.map((c) => ('error' in c ? [c.key, (c.error as RuntimeError).message] : [c.key, 'read']));
    expect(outcome).toEqual([
      ['https://site.example/', 'read'],
      ['https://site.example/a', 'URL host resolves to a documentation address (192.0.2.10); set allowPrivateHosts to ingest from internal hosts'],
      ['https://bench.example/b', 'URL host resolves to a benchmarking address (198.18.0.7); set allowPrivateHosts to ingest from internal hosts'],
      ['https://nat.example/c', 'URL host resolves to a NAT64 of 10.0.0.1 (private) address (64:ff9b::a00:1); set allowPrivateHosts to ingest from internal hosts'],
      ['http://[2002:7f00:1::1]/d', 'URL host resolves to a 6to4 of 127.0.0.1 (loopback) address (2002:7f00:1::1), which is never fetched: only global unicast addresses are'],
      ['https://site.example/e', 'read'],
    ]);
    // The start URL before Firecrawl was asked, then each host once.
    expect(resolved).toEqual(['site.example', 'site.example', 'docs.example', 'bench.example', 'nat.example']);
    expect(ctx.asked).toEqual(['/v2/crawl', '/v2/crawl/c-1']);
  });

  it('fails a scrape that landed on a refused address, and refuses a start URL before Firecrawl is asked', async () => {
    const landed = context({ scrape: page('https://site.example/', '# Moved', 'http://192.0.2.10/admin') });
    const error = await reader.readSource({ url: 'https://site.example/', options: {} }, landed).catch((e: unknown) => e);
    expect(RuntimeError.isInstance(error) && error.message).toBe('URL host resolves to a documentation address (192.0.2.10); set allowPrivateHosts to ingest from internal hosts');

    const start = context({});
    const refused = await reader.readSource({ url: 'https://nat.example/', options: {} }, start).catch((e: unknown) => e);
    expect(RuntimeError.isInstance(refused) && refused.message).toBe('URL host resolves to a NAT64 of 10.0.0.1 (private) address (64:ff9b::a00:1); set allowPrivateHosts to ingest from internal hosts');
    expect(start.asked).toEqual([]);

    const fine = await reader.readSource({ url: 'https://site.example/', options: {} }, context({ scrape: page('https://site.example/', '# Lighthouse keeping') }));
    expect(fine.parts[0]!.documents[0]!.content).toBe('# Lighthouse keeping');
  });
});
