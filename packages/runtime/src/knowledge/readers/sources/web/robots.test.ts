import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeError } from '../../../../errors.js';
import { safeFetch, type FetchedResource } from '../../../../net/safe-fetch.js';
import type { SourceContext } from '../source-reader.js';
import { completeLines, loadRobots, parseRobots, ROBOTS_AGENT } from './robots.js';

const ROBOTS = `# comments are ignored
User-agent: *
Disallow: /private/
Allow: /private/open-day
Disallow: /*.json$
Crawl-delay: 2

User-agent: ${ROBOTS_AGENT}
Disallow: /drafts/
Allow: /
Crawl-delay: 0.5

User-agent: greedybot
Disallow: /
`;

describe('parseRobots', () => {
  it('applies the group that names our agent, longest match winning', () => {
    const rules = parseRobots('https://g.example/robots.txt', ROBOTS);
    expect(rules.isAllowed('https://g.example/')).toBe(true);
    expect(rules.isAllowed('https://g.example/drafts/plan')).toBe(false);
    // Our group has no /private/ rule, so the * group does not apply to us.
    expect(rules.isAllowed('https://g.example/private/ledger')).toBe(true);
    expect(rules.crawlDelayMs).toBe(500);
  });

  it('falls back to the * group, with Allow beating a shorter Disallow and $ anchoring', () => {
    const rules = parseRobots('https://g.example/robots.txt', 'User-agent: *\nDisallow: /private/\nAllow: /private/open-day\nDisallow: /*.json$\n');
    expect(rules.isAllowed('https://g.example/private/ledger')).toBe(false);
    expect(rules.isAllowed('https://g.example/private/open-day')).toBe(true);
    expect(rules.isAllowed('https://g.example/data.json')).toBe(false);
    expect(rules.isAllowed('https://g.example/data.json?x=1')).toBe(true);
    expect(rules.crawlDelayMs).toBeUndefined();
  });

  it('Disallow: / closes the whole site', () => {
    const rules = parseRobots('https://g.example/robots.txt', 'User-agent: *\nDisallow: /\n');
    expect(rules.isAllowed('https://g.example/')).toBe(false);
    expect(rules.isAllowed('https://g.example/anything')).toBe(false);
  });
});

function contextAnswering(answer: Partial<FetchedResource> | Error): SourceContext {
  const fetch = async (url: string): Promise<FetchedResource> => {
    if (answer instanceof Error) throw answer;
    return { url, status: 200, mimeType: 'text/plain', body: new Uint8Array(), headers: {}, remoteAddress: '127.0.0.1', ...answer };
  };
  return { fetch, fetchService: fetch, checkUrl: async (u) => new URL(u), readers: undefined as never, maxBytes: 1000, signal: undefined };
}

describe('loadRobots', () => {
  const origin = new URL('https://g.example/start');

  it('parses a 2xx answer', async () => {
    const rules = await loadRobots(origin, contextAnswering({ body: new TextEncoder().encode('User-agent: *\nDisallow: /x\n') }));
    expect(rules.isAllowed('https://g.example/x')).toBe(false);
    expect(rules.isAllowed('https://g.example/y')).toBe(true);
  });

  it('treats a 4xx as no rules and a 5xx as disallowing everything (RFC 9309)', async () => {
    expect((await loadRobots(origin, contextAnswering({ status: 404 }))).isAllowed('https://g.example/any')).toBe(true);
    const unreachable = await loadRobots(origin, contextAnswering({ status: 503 }));
    expect(unreachable.isAllowed('https://g.example/')).toBe(false);
    expect(unreachable.note).toBe('https://g.example/robots.txt answered HTTP 503, so the site is treated as disallowing all crawling (RFC 9309)');
  });

  it('ignores an oversized file with a note, and passes other failures on', async () => {
    const big = await loadRobots(origin, contextAnswering(new RuntimeError('PAYLOAD_TOO_LARGE', 'too big')));
    expect(big.isAllowed('https://g.example/')).toBe(true);
    expect(big.note).toContain('larger than 512 KiB');
    await expect(loadRobots(origin, contextAnswering(new RuntimeError('BAD_REQUEST', 'Cannot fetch https://g.example/robots.txt (ECONNREFUSED)')))).rejects.toThrow('ECONNREFUSED');
  });
});

const CAP = 512 * 1024;
const bytes = (value: string) => new TextEncoder().encode(value);
const decoded = (data: Uint8Array) => new TextDecoder().decode(data);

/** `size` bytes: two rules, comment lines, and `last` at the very end. */
function padded(last: string, size: number): string {
  const head = 'User-agent: *\nDisallow: /private/\nDisallow: /s\n';
  let gap = size - head.length - last.length;
  const lines: string[] = [];
  for (; gap > 100; gap -= 100) lines.push(`${'#'.repeat(99)}\n`);
  lines.push(`${'#'.repeat(gap - 1)}\n`);
  return head + lines.join('') + last;
}

let server: Server;
let origin: URL;
let file = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(Buffer.byteLength(file)) });
    res.end(file);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/start`);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const realFetch = (url: string, o: Parameters<SourceContext['fetch']>[1] = {}) => safeFetch(url, { ...o, maxBytes: o.maxBytes ?? 10_000_000, allowPrivateHosts: true });

/** The real fetch (safeFetch) behind a context, serving `body` as the robots file. */
function served(body: string): SourceContext {
  file = body;
  const fetch = realFetch;
  return { fetch, fetchService: fetch, checkUrl: async (u) => new URL(u), readers: undefined as never, maxBytes: 10_000_000, signal: undefined };
}

describe('loadRobots: a robots.txt over 512 KiB (RFC 9309 asks for at least 500 KiB)', () => {
  it('parses the first 512 KiB, so the rules there still apply; a line the cut runs through is dropped', async () => {
    const text = `${padded('', CAP - 14)}Allow: /shop/cart-and-checkout\nDisallow: /after-the-cap\n${'#\n'.repeat(2000)}`;
    expect(text.slice(CAP - 14, CAP)).toBe('Allow: /shop/c');
    const rules = await loadRobots(origin, served(text));
    const at = (path: string) => rules.isAllowed(new URL(path, origin).href);
    expect(at('/private/ledger')).toBe(false);
    // Parsed, the cut line would read "Allow: /shop/c" and open /shop/cellar; it is dropped.
    expect(at('/shop/cellar')).toBe(false);
    expect(at('/shop/cart-and-checkout')).toBe(false);
    // Past the cap: not read.
    expect(at('/after-the-cap')).toBe(true);
    expect(at('/other')).toBe(true);
    expect(rules.note).toBe(`${new URL('/robots.txt', origin).href} is larger than 512 KiB; its first ${CAP - 14} bytes (the lines before the cut) were parsed (RFC 9309)`);
  });

  it('at the boundary: a file of exactly 512 KiB is read whole, its last line too; one byte more cuts that line', async () => {
    const allowed = (rules: { isAllowed(url: string): boolean }) => rules.isAllowed(new URL('/shop/cart-and-c', origin).href);
    const whole = await loadRobots(origin, served(padded('Allow: /shop/cart-and-c\n', CAP)));
    expect(whole.note).toBeUndefined();
    expect(allowed(whole)).toBe(true);
    // Exactly 512 KiB without a final line end: still whole, so the last line counts.
    const unterminated = await loadRobots(origin, served(padded('Allow: /shop/cart-and-c', CAP)));
    expect(unterminated.note).toBeUndefined();
    expect(allowed(unterminated)).toBe(true);
    // One byte more: the last line is the one the cut runs through, and is dropped.
    const over = await loadRobots(origin, served(padded('Allow: /shop/cart-and-ch', CAP + 1)));
    expect(over.note).toContain('is larger than 512 KiB');
    expect(allowed(over)).toBe(false);
    expect(over.isAllowed(new URL('/private/x', origin).href)).toBe(false);
  });

  it('keeps whole lines only, whatever their line ends', () => {
    expect(decoded(completeLines(bytes('a\nb\nDisallow: /x')))).toBe('a\nb\n');
    expect(decoded(completeLines(bytes('a\r\nb\r\nDisall')))).toBe('a\r\nb\r\n');
    expect(decoded(completeLines(bytes('a\rb\rDis')))).toBe('a\rb\r');
    // A cut between CR and LF keeps the line; the LF alone would have been an empty line.
    expect(decoded(completeLines(bytes('a\r\nb\r')))).toBe('a\r\nb\r');
    expect(completeLines(bytes('no line end at all')).byteLength).toBe(0);
    // A multi-byte character cut by the cap sits in the dropped line, so the rest decodes cleanly.
    expect(decoded(completeLines(bytes('Disallow: /ü\nAllow: /ü').subarray(0, 22)))).toBe('Disallow: /ü\n');
  });
});
