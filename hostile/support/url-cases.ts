/**
 * Content the runtime fetches itself: hostile pages from the suite's page server (nesting,
 * sheer size, a robots.txt over 512 KiB), and URLs whose address is not global unicast, spelt
 * every way that has slipped past guards (numeric and hex IPv4, IPv4-mapped, NAT64, 6to4 and
 * IPv4-compatible IPv6, the metadata service, redirects to them). The refused ones point at the
 * page server's `/canary`, which must never be asked for.
 */
import type { HostileCase } from './case.js';
import { flatHtml, nestedHtml, type Page } from '../../packages/runtime/test/support/hostile-inputs.js';

const MB = 1_000_000;
const REFUSED = /URL host resolves to an? .+ address/;

export const hostilePages: Record<string, Page> = {
  '/canary': { type: 'text/plain', body: () => 'if you read this, the guard failed' },
  '/nested-2000.html': { body: () => nestedHtml(2000) },
  '/nested-100000.html': { body: () => nestedHtml(100_000) },
  '/flat.html': { body: () => flatHtml(9.5 * MB) },
  '/huge.html': { body: () => flatHtml(50 * MB) },
  '/to-loopback': { status: 302, headers: { location: '' } },
  '/to-metadata': { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } },
  '/site/': { body: () => '<!doctype html><html><body><h1>Site</h1><p>The open page of a site.</p><a href="/private/secret.html">secret</a></body></html>' },
  '/private/secret.html': { body: () => '<!doctype html><html><body><p>Disallowed by robots.txt.</p></body></html>' },
  // The rule that matters comes first, then 600 KiB of comments: a crawler that ignores a
  // robots.txt over 512 KiB would fetch the private page.
  '/robots.txt': { type: 'text/plain', body: () => `User-agent: *\nDisallow: /private/\n${'# padding comment line of a very long robots file\n'.repeat((600 * 1024) / 50)}` },
};

/** The page server's port fills in `/to-loopback`'s target once it is known. */
export function pointRedirects(pages: Record<string, Page>, port: number): void {
  pages['/to-loopback'] = { status: 302, headers: { location: `http://127.0.0.1:${port}/canary` } };
}

const refused = (name: string, url: (port: number) => string): HostileCase => ({
  name,
  class: 'SSRF',
  send: { kind: 'url', url: ({ port }) => url(port) },
  expect: { status: 'failed', message: REFUSED },
  neverFetched: ['/canary'],
});

export const urlCases: HostileCase[] = [
  {
    name: 'HTML of 2,000 nested divs (22 KB), fetched by URL',
    class: 'deep nesting',
    send: { kind: 'url', url: ({ allowed }) => `${allowed}/nested-2000.html` },
    expect: { status: 'failed', message: /KNOWLEDGE_MAX_DEPTH/ },
  },
  {
    name: 'HTML of 100,000 nested divs, fetched by URL',
    class: 'deep nesting',
    send: { kind: 'url', url: ({ allowed }) => `${allowed}/nested-100000.html` },
    expect: { status: 'failed', message: /KNOWLEDGE_MAX_DEPTH/ },
  },
  {
    name: 'a 9.5 MB flat HTML page, fetched by URL',
    class: 'huge flat',
    send: { kind: 'url', url: ({ allowed }) => `${allowed}/flat.html` },
    expect: { status: 'completed', message: /^$/ },
  },
  {
    name: 'a 50 MB page, fetched by URL',
    class: 'huge flat',
    send: { kind: 'url', url: ({ allowed }) => `${allowed}/huge.html` },
    expect: { status: 'failed', message: /KNOWLEDGE_MAX_PAGE_BYTES/ },
  },
  {
    name: 'a site whose robots.txt (over 512 KiB) disallows a linked page',
    class: 'SSRF',
    send: { kind: 'url', url: ({ allowed }) => `${allowed}/site/`, reader: 'website' },
    expect: { status: 'completed', message: /robots\.txt is larger than 512 KiB/ },
    neverFetched: ['/private/secret.html'],
  },
  refused('loopback by address', (port) => `http://127.0.0.1:${port}/canary`),
  refused('loopback by name (localhost)', (port) => `http://localhost:${port}/canary`),
  refused('loopback in hex (0x7f.1)', (port) => `http://0x7f.1:${port}/canary`),
  refused('loopback as one number (2130706433)', (port) => `http://2130706433:${port}/canary`),
  refused('loopback IPv6 ([::1])', (port) => `http://[::1]:${port}/canary`),
  refused('loopback IPv4-mapped ([::ffff:127.0.0.1])', (port) => `http://[::ffff:127.0.0.1]:${port}/canary`),
  refused('loopback IPv4-compatible ([::127.0.0.1])', (port) => `http://[::127.0.0.1]:${port}/canary`),
  refused('loopback through NAT64 ([64:ff9b::7f00:1])', (port) => `http://[64:ff9b::7f00:1]:${port}/canary`),
  refused('loopback through 6to4 ([2002:7f00:1::])', (port) => `http://[2002:7f00:1::]:${port}/canary`),
  refused('the unspecified address (0.0.0.0)', (port) => `http://0.0.0.0:${port}/canary`),
  refused('a documentation address (192.0.2.10)', (port) => `http://192.0.2.10:${port}/canary`),
  refused('a benchmarking address (198.18.0.1)', (port) => `http://198.18.0.1:${port}/canary`),
  refused('a unique-local address ([fd00::1])', (port) => `http://[fd00::1]:${port}/canary`),
  refused('the cloud metadata service (169.254.169.254)', () => 'http://169.254.169.254/latest/meta-data/'),
  {
    name: 'an allowed page redirecting to loopback',
    class: 'SSRF',
    send: { kind: 'url', url: ({ allowed }) => `${allowed}/to-loopback` },
    expect: { status: 'failed', message: REFUSED },
    neverFetched: ['/canary'],
  },
  {
    name: 'an allowed page redirecting to the metadata service',
    class: 'SSRF',
    send: { kind: 'url', url: ({ allowed }) => `${allowed}/to-metadata` },
    expect: { status: 'failed', message: REFUSED },
  },
];
