import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeError } from '../errors.js';
import { checkUrl, safeFetch, type HostResolver, type SafeFetchOptions } from './safe-fetch.js';

let server: Server;
let port: number;
const hosts: string[] = [];
/** What the echo endpoints received: method, the headers that matter here, and the body. */
const received: { path: string; method: string; auth: string | undefined; type: string | undefined; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hosts.push(req.headers.host ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname.startsWith('/echo')) {
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => {
        received.push({ path: url.pathname, method: req.method ?? '', auth: req.headers.authorization, type: req.headers['content-type'], body: Buffer.concat(parts).toString() });
        res.writeHead(url.pathname === '/echo/denied' ? 401 : 200, { 'content-type': 'application/json', 'x-request-id': 'r-1' });
        res.end(JSON.stringify({ ok: url.pathname !== '/echo/denied' }));
      });
      return;
    }
    if (url.pathname === '/page') {
      res.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8' });
      res.end('# Hello from loopback');
    } else if (url.pathname === '/redirect') {
      res.writeHead(302, { location: url.searchParams.get('to') ?? '/page' });
      res.end();
    } else if (url.pathname === '/loop') {
      res.writeHead(301, { location: '/loop' });
      res.end();
    } else if (url.pathname === '/streamed') {
      // No Content-Length: the cap must hold while the body streams in.
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (let i = 0; i < 4; i++) res.write('x'.repeat(1000));
      res.end();
    } else if (url.pathname === '/declared') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '4000' });
      res.end('y'.repeat(4000));
    } else if (url.pathname === '/stall') {
      // Headers, then nothing: only the total timeout ends this.
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    } else if (url.pathname === '/silent') {
      // Never answers.
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const base = (host = '127.0.0.1') => `http://${host}:${port}`;
const fetchIt = (url: string, options: Partial<SafeFetchOptions> = {}) => safeFetch(url, { maxBytes: 10_000, ...options });

async function refusal(promise: Promise<unknown>): Promise<RuntimeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(RuntimeError.isInstance(error)).toBe(true);
  return error as RuntimeError;
}

/** Answers from a table instead of DNS, counting the questions. */
function resolver(table: Record<string, string[]>): HostResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
  };
  return Object.assign(resolve, { calls });
}

const neverAnswers: HostResolver = () => new Promise(() => undefined);

describe('safeFetch', () => {
  it('refuses loopback by default, by address and by name', async () => {
    const byAddress = await refusal(fetchIt(`${base()}/page`));
    expect(byAddress.status).toBe(400);
    expect(byAddress.message).toBe('URL host resolves to a loopback address (127.0.0.1); set allowPrivateHosts to ingest from internal hosts');
    const byName = await refusal(fetchIt(`${base('localhost')}/page`));
    expect(byName.status).toBe(400);
    expect(byName.message).toMatch(/^URL host resolves to a (loopback|unspecified) address \(.+\); set allowPrivateHosts/);
    const v6 = await refusal(fetchIt(`http://[::1]:${port}/page`));
    expect(v6.message).toContain('loopback address (::1)');
    // Numeric and hex spellings of a host are normalised by the URL parser before the check.
    for (const host of ['2130706433', '0x7f.1', '[::ffff:127.0.0.1]']) {
      const spelled = await refusal(fetchIt(`http://${host}:${port}/page`));
      expect(spelled.message, host).toMatch(/^URL host resolves to a loopback address \((127\.0\.0\.1|::ffff:7f00:1)\)/);
    }
  });

  it('refuses a host when any one of its addresses is private', async () => {
    const resolve = resolver({ 'mixed.test': ['93.184.216.34', '10.0.0.5'] });
    const error = await refusal(fetchIt('http://mixed.test/page', { resolve }));
    expect(error.message).toBe('URL host resolves to a private address (10.0.0.5); set allowPrivateHosts to ingest from internal hosts');
  });

  it('fetches from loopback with allowPrivateHosts', async () => {
    const fetched = await fetchIt(`${base()}/page`, { allowPrivateHosts: true });
    expect(fetched.status).toBe(200);
    expect(fetched.mimeType).toBe('text/markdown');
    expect(Buffer.from(fetched.body).toString()).toBe('# Hello from loopback');
    expect(fetched.url).toBe(`${base()}/page`);
  });

  it('follows redirects, and re-checks every hop', async () => {
    const followed = await fetchIt(`${base()}/redirect?to=/page`, { allowPrivateHosts: true });
    expect(followed.url).toBe(`${base()}/page`);

    // wiki.test may be private; the address it redirects to may not.
    const resolve = resolver({ 'wiki.test': ['127.0.0.1'] });
    const to = encodeURIComponent(`${base()}/page`);
    const error = await refusal(fetchIt(`${base('wiki.test')}/redirect?to=${to}`, { resolve, allowPrivateHosts: ['wiki.test'] }));
    expect(error.message).toBe('URL host resolves to a loopback address (127.0.0.1); set allowPrivateHosts to ingest from internal hosts');

    const toFile = await refusal(fetchIt(`${base()}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`, { allowPrivateHosts: true }));
    expect(toFile.message).toBe('Only http and https URLs can be fetched, not file');
  });

  it('stops after five redirects', async () => {
    const error = await refusal(fetchIt(`${base()}/loop`, { allowPrivateHosts: true }));
    expect(error.message).toBe(`${base()}/loop redirected more than 5 times`);
  });

  it('connects to the vetted address, not to a second DNS answer', async () => {
    // A rebinding resolver: the first answer is the one checked; any later one points elsewhere.
    // `.invalid` never resolves in real DNS, so a connection that looked the name up again
    // would fail rather than reach the server.
    let answers = 0;
    const resolve: HostResolver = async () => [{ address: answers++ === 0 ? '127.0.0.1' : '10.0.0.5', family: 4 }];
    const fetched = await fetchIt(`${base('rebind.invalid')}/page`, { resolve, allowPrivateHosts: ['rebind.invalid'] });
    expect(Buffer.from(fetched.body).toString()).toBe('# Hello from loopback');
    expect(fetched.remoteAddress).toBe('127.0.0.1');
    expect(answers).toBe(1);
    expect(hosts.at(-1)).toBe(`rebind.invalid:${port}`);
  });

  it('caps the body while it streams, and by its declared length', async () => {
    const streamed = await refusal(fetchIt(`${base()}/streamed`, { allowPrivateHosts: true, maxBytes: 1500 }));
    expect(streamed.status).toBe(413);
    expect(streamed.message).toBe(`${base()}/streamed is larger than the knowledge limit of 1500 bytes`);
    const declared = await refusal(fetchIt(`${base()}/declared`, { allowPrivateHosts: true, maxBytes: 1500 }));
    expect(declared.status).toBe(413);
    const fits = await fetchIt(`${base()}/streamed`, { allowPrivateHosts: true, maxBytes: 4000 });
    expect(fits.body.byteLength).toBe(4000);
  });

  it('with truncate, keeps the first maxBytes of a larger body instead of refusing it', async () => {
    const streamed = await fetchIt(`${base()}/streamed`, { allowPrivateHosts: true, maxBytes: 1500, truncate: true });
    expect(streamed.body.byteLength).toBe(1500);
    expect(streamed.truncated).toBe(true);
    // A declared Content-Length over the cap is not refused up front either.
    const declared = await fetchIt(`${base()}/declared`, { allowPrivateHosts: true, maxBytes: 1500, truncate: true });
    expect(Buffer.from(declared.body).toString()).toBe('y'.repeat(1500));
    expect(declared.truncated).toBe(true);
    const exact = await fetchIt(`${base()}/declared`, { allowPrivateHosts: true, maxBytes: 4000, truncate: true });
    expect(exact.body.byteLength).toBe(4000);
    expect(exact.truncated).toBeUndefined();
  });

  it('gives up after the total timeout, before or during the body', async () => {
    const silent = await refusal(fetchIt(`${base()}/silent`, { allowPrivateHosts: true, timeoutMs: 150 }));
    expect(silent.status).toBe(400);
    expect(silent.message).toBe(`Fetching ${base()}/silent took longer than 150 ms`);
    const stalled = await refusal(fetchIt(`${base()}/stall`, { allowPrivateHosts: true, timeoutMs: 150 }));
    expect(stalled.message).toBe(`Fetching ${base()}/stall took longer than 150 ms`);
  });

  it('counts a slow host lookup against the total timeout', async () => {
    const error = await refusal(fetchIt('http://slow-dns.test/page', { resolve: neverAnswers, timeoutMs: 100 }));
    expect(error.message).toBe('Fetching http://slow-dns.test/page took longer than 100 ms');
  });

  it('refuses other schemes, invalid URLs, credentials, unknown hosts and error statuses', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.com/x', 'gopher://127.0.0.1:70/']) {
      const error = await refusal(fetchIt(url));
      expect(error.status).toBe(400);
      expect(error.message).toMatch(/^Only http and https URLs can be fetched, not (file|ftp|gopher)$/);
    }
    expect((await refusal(fetchIt('not a url'))).message).toBe('"not a url" is not a valid URL');
    expect((await refusal(fetchIt('http://user:pw@example.com/'))).message).toBe('URLs with credentials cannot be fetched');
    const unknown = await refusal(fetchIt('http://nowhere.test/', { resolve: resolver({}) }));
    expect(unknown.message).toBe('Cannot resolve the host of http://nowhere.test/ (ENOTFOUND)');
    const missing = await refusal(fetchIt(`${base()}/missing`, { allowPrivateHosts: true }));
    expect(missing.message).toBe(`${base()}/missing answered HTTP 404 Not Found`);
  });

  it('sends a method, headers and a body, and answers error statuses when asked', async () => {
    received.length = 0;
    const posted = await fetchIt(`${base()}/echo`, {
      allowPrivateHosts: true,
      method: 'POST',
      headers: { authorization: 'Bearer k-1', 'content-type': 'application/json' },
      body: '{"q":"kettle"}',
    });
    expect(posted.status).toBe(200);
    expect(posted.headers['x-request-id']).toBe('r-1');
    expect(received).toEqual([{ path: '/echo', method: 'POST', auth: 'Bearer k-1', type: 'application/json', body: '{"q":"kettle"}' }]);

    const denied = await fetchIt(`${base()}/echo/denied`, { allowPrivateHosts: true, allowHttpErrors: true });
    expect(denied.status).toBe(401);
    expect(JSON.parse(Buffer.from(denied.body).toString())).toEqual({ ok: false });
    expect((await refusal(fetchIt(`${base()}/echo/denied`, { allowPrivateHosts: true }))).message).toBe(`${base()}/echo/denied answered HTTP 401 Unauthorized`);
  });

  it('keeps headers within the origin, and turns a 302 after a POST into a GET', async () => {
    received.length = 0;
    // Same origin: the header and (for a 302) a bodiless GET.
    await fetchIt(`${base()}/redirect?to=/echo/same`, { allowPrivateHosts: true, method: 'POST', headers: { authorization: 'Bearer k-2' }, body: 'x' });
    // Another origin (localhost is another host name for the same server): no caller headers.
    const elsewhere = encodeURIComponent(`${base('localhost')}/echo/other`);
    await fetchIt(`${base()}/redirect?to=${elsewhere}`, { allowPrivateHosts: true, headers: { authorization: 'Bearer k-3' } });
    expect(received).toEqual([
      { path: '/echo/same', method: 'GET', auth: 'Bearer k-2', type: undefined, body: '' },
      { path: '/echo/other', method: 'GET', auth: undefined, type: undefined, body: '' },
    ]);
  });

  it('follows only the redirects allowRedirect accepts', async () => {
    const before = hosts.length;
    const to = encodeURIComponent(`${base('localhost')}/page`);
    const error = await refusal(fetchIt(`${base()}/redirect?to=${to}`, { allowPrivateHosts: true, allowRedirect: (next, from) => next.host === from.host }));
    expect(error.message).toBe(`${base()}/redirect?to=${to} redirected to ${base('localhost')}/page, which was not followed`);
    expect(hosts.length).toBe(before + 1);
    const same = await fetchIt(`${base()}/redirect?to=/page`, { allowPrivateHosts: true, allowRedirect: (next, from) => next.host === from.host });
    expect(same.url).toBe(`${base()}/page`);
  });

  it('checkUrl applies the same address rules without fetching', async () => {
    const before = hosts.length;
    expect((await refusal(checkUrl(`${base()}/page`))).message).toBe('URL host resolves to a loopback address (127.0.0.1); set allowPrivateHosts to ingest from internal hosts');
    expect((await checkUrl(`${base()}/page`, { allowPrivateHosts: true })).href).toBe(`${base()}/page`);
    expect((await refusal(checkUrl('ftp://example.com/'))).message).toBe('Only http and https URLs can be fetched, not ftp');
    expect(hosts.length).toBe(before);
  });
});
