import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeError } from '../../../errors.js';
import { checkUrl, safeFetch, type HostResolver, type SafeFetchOptions } from '../../../net/safe-fetch.js';
import type { FailedChild, SourceChild, SourceContext } from './source-reader.js';
import { ReaderRegistry } from '../registry.js';
import { WebsiteReader } from './website.js';

let server: Server;
let base: string;
const requests: { path: string; at: number }[] = [];

const page = (title: string, body: string) => `<html><head><title>${title}</title></head><body><article><h1>${title}</h1><p>${body}</p></article></body></html>`;

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push({ path, at: Date.now() });
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('User-agent: svc-runtime-knowledge\nCrawl-delay: 0.2\n');
      return;
    }
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page('Start', 'Welcome to the orchard. <a href="/a">A</a> <a href="/b">B</a> <a href="/away">Away</a> <a href="/c">C</a> <a href="/notes.txt">Notes</a>'));
      return;
    }
    if (path === '/away') {
      res.writeHead(302, { location: `http://localhost:${(server.address() as AddressInfo).port}/elsewhere` });
      res.end();
      return;
    }
    if (path === '/links') {
      const port = (server.address() as AddressInfo).port;
      const away = ['http://192.0.2.10/admin', 'http://[64:ff9b::a00:1]/', 'http://198.18.0.1/', 'http://[2002:7f00:1::1]/x', `http://metadata.test:${port}/latest`, 'http://[::ffff:169.254.169.254]/'];
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page('Links', `Links everywhere. ${away.map((href) => `<a href="${href}">away</a>`).join(' ')} <a href="/a">A</a>`));
      return;
    }
    if (path === '/notes.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('Prune the pear trees in late winter.');
      return;
    }
    if (['/a', '/b', '/c'].includes(path)) {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page(`Page ${path.slice(1)}`, `Apple variety ${path.slice(1)} ripens in autumn. ${'Orchard notes. '.repeat(40)}`));
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function context(maxBytes = 1_000_000, rules: Partial<SafeFetchOptions> = { allowPrivateHosts: true }, fetched: string[] = []): SourceContext {
  return {
    fetch: (url, o = {}) => {
      fetched.push(url);
      return safeFetch(url, { ...rules, ...o, maxBytes: o.maxBytes ?? maxBytes });
    },
    fetchService: (url, o = {}) => safeFetch(url, { ...rules, ...o, maxBytes: o.maxBytes ?? maxBytes }),
    checkUrl: (url) => checkUrl(url, { ...rules }),
    readers: new ReaderRegistry(),
    maxBytes,
    signal: undefined,
  };
}

describe('WebsiteReader', () => {
  it('stops at max_pages, reads non-HTML pages by their type, notes an off-site redirect, and waits Crawl-delay between requests', async () => {
    requests.length = 0;
    const reader = new WebsiteReader({ maxDepth: 3, maxPages: 10, delayMs: 0 });
    const result = await reader.readSource({ url: `${base}/`, options: { max_pages: 4 } }, context());
    const urls = result.parts.flatMap((p) => p.documents).map((d) => d.meta_data.url);
    expect(urls).toEqual([`${base}/`, `${base}/a`, `${base}/b`, `${base}/c`]);
    const elsewhere = `http://localhost:${new URL(base).port}/elsewhere`;
    expect(result.notes).toEqual([`${base}/away redirected to ${elsewhere}, which was not followed`]);
    expect(requests.some((r) => r.path === '/elsewhere')).toBe(false);
    expect(result.title).toBe('Start');
    expect(result.parts.flatMap((p) => p.documents)[1]).toMatchObject({ name: 'Page a', id: `${base}/a`, meta_data: { title: 'Page a', depth: 1 } });
    // robots.txt asked for 0.2 s between requests; the setting said 0.
    const pages = requests.filter((r) => r.path !== '/robots.txt');
    for (let i = 1; i < pages.length; i++) expect(pages[i]!.at - pages[i - 1]!.at).toBeGreaterThanOrEqual(190);

    const all = await new WebsiteReader({ maxDepth: 1, maxPages: 10, delayMs: 0 }).readSource({ url: `${base}/`, options: {} }, context());
    expect(all.parts.flatMap((p) => p.documents).find((d) => d.meta_data.url === `${base}/notes.txt`)?.content).toBe('Prune the pear trees in late winter.');
  });

  it('keeps every page within the knowledge limit, with a note where it stopped', async () => {
    const reader = new WebsiteReader({ maxDepth: 3, maxPages: 10, delayMs: 0 });
    const result = await reader.readSource({ url: `${base}/`, options: { max_depth: 1 } }, context(1500));
    const read = result.parts.flatMap((p) => p.documents).map((d) => d.meta_data.url);
    expect(read[0]).toBe(`${base}/`);
    expect(read.length).toBeLessThan(5);
    expect(result.notes.some((n) => n.includes('larger than the knowledge limit') || n.includes('knowledge limit of 1500 bytes was reached'))).toBe(true);
  });

  it('refuses options beyond the configured limits, and fails with the start page\'s own error when nothing was read', async () => {
    const reader = new WebsiteReader({ maxDepth: 2, maxPages: 5, delayMs: 0 });
    expect(() => reader.check({ url: `${base}/`, options: { max_depth: 3 } })).toThrow('website reader: reader_options.max_depth must be a whole number from 0 to 2');
    expect(() => reader.check({ url: `${base}/`, options: { depth: 1 } })).toThrow('website reader: unknown reader_options "depth"; known: max_depth, max_pages');
    expect(reader.check({ url: `${base}/start#top`, options: {} })).toEqual({ url: `${base}/start` });
    const error = await reader.readSource({ url: `${base}/nowhere`, options: {} }, context()).catch((e: unknown) => e);
    expect(RuntimeError.isInstance(error) && error.message).toBe(`${base}/nowhere answered HTTP 404 Not Found`);
    await expect(reader.read({ data: '<html></html>', name: 'x.html' })).rejects.toThrow('The website reader reads a url, not file content ("x.html")');
  });
});

async function children(reader: WebsiteReader, url: string, ctx: SourceContext): Promise<(SourceChild | FailedChild)[]> {
  const out: (SourceChild | FailedChild)[] = [];
  for await (const child of reader.children({ url, options: {} }, ctx)) out.push(child);
  return out;
}

const documentationResolver: HostResolver = async () => [{ address: '192.0.2.10', family: 4 }];

describe('WebsiteReader: every request under the address rules', () => {

  it('never fetches a link off the site, whatever address it names', async () => {
    requests.length = 0;
    const fetched: string[] = [];
    const read = await children(new WebsiteReader({ maxDepth: 1, maxPages: 10, delayMs: 0 }), `${base}/links`, context(1_000_000, { allowPrivateHosts: true }, fetched));
    expect(read.map((c) => c.key)).toEqual([`${base}/links`, `${base}/a`]);
    expect(fetched).toEqual([`${base}/robots.txt`, `${base}/links`, `${base}/a`]);
    expect(requests.map((r) => r.path)).toEqual(['/robots.txt', '/links', '/a']);
  });

  it('checks the host again for every page: once it answers a refused address, its pages fail naming the class and are never asked', async () => {
    requests.length = 0;
    const port = new URL(base).port;
    // Loopback (allowed for site.test) for robots.txt and the start page, then addresses that
    // allowPrivateHosts never lifts.
    const later = ['2002:7f00:1::1', '192.0.0.9', '224.0.0.1', '64:ff9b::e000:1', 'fe00::1'];
    let lookups = 0;
    const resolve: HostResolver = async () => {
      const address = lookups < 2 ? '127.0.0.1' : later[(lookups - 2) % later.length]!;
      lookups++;
      return [{ address, family: address.includes(':') ? 6 : 4 }];
    };
    const reader = new WebsiteReader({ maxDepth: 1, maxPages: 10, delayMs: 0 });
    const read = await children(reader, `http://site.test:${port}/`, context(1_000_000, { allowPrivateHosts: ['site.test'], resolve }));
    const failures = read.filter((c): c is FailedChild => 'error' in c).map((c) => [new URL(c.key).pathname, (c.error as RuntimeError).message.replace(/\), which is never fetched.*$/, ')')]);
    expect(read[0]!.key).toBe(`http://site.test:${port}/`);
    expect(failures).toEqual([
      ['/a', 'URL host resolves to a 6to4 of 127.0.0.1 (loopback) address (2002:7f00:1::1)'],
      ['/b', 'URL host resolves to a PCP anycast address (192.0.0.9)'],
      ['/away', 'URL host resolves to a multicast address (224.0.0.1)'],
      ['/c', 'URL host resolves to a NAT64 of 224.0.0.1 (multicast) address (64:ff9b::e000:1)'],
      ['/notes.txt', 'URL host resolves to a reserved address (fe00::1)'],
    ]);
    expect(requests.map((r) => r.path)).toEqual(['/robots.txt', '/']);
  });

  it('under the default rules, a site on a documentation address is refused before any request', async () => {
    requests.length = 0;
    const resolve = documentationResolver;
    const error = await new WebsiteReader({ maxDepth: 1, maxPages: 10, delayMs: 0 })
      .readSource({ url: 'http://docs.test/', options: {} }, context(1_000_000, { resolve }))
      .catch((e: unknown) => e);
    expect(RuntimeError.isInstance(error) && error.message).toBe('URL host resolves to a documentation address (192.0.2.10); set allowPrivateHosts to ingest from internal hosts');
    expect(requests).toEqual([]);
  });
});
