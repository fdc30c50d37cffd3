/**
 * @module net/safe-fetch-addresses.test
 * safeFetch and checkUrl against every refused address class: by name (a test resolver) and as
 * a literal, on the first hop and after a redirect, and what allowPrivateHosts lifts. The only
 * server is on loopback; a refused hop must fail before any connection, so no test reaches
 * another address.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeError } from '../errors.js';
import { checkUrl, safeFetch, type HostResolver } from './safe-fetch.js';

let server: Server;
let port: number;
const asked: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push(`${req.headers.host ?? ''}${req.url ?? ''}`);
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/redirect') {
      res.writeHead(302, { location: url.searchParams.get('to') ?? '/page' });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('loopback page');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** One address per refused class: [address, class, lifted by allowPrivateHosts]. */
const CLASSES: [string, string, boolean][] = [
  ['192.0.2.10', 'documentation', true],
  ['198.51.100.7', 'documentation', true],
  ['203.0.113.9', 'documentation', true],
  ['2001:db8::10', 'documentation', true],
  ['3fff::10', 'documentation', true],
  ['198.18.0.7', 'benchmarking', true],
  ['2001:2::10', 'benchmarking', true],
  ['10.0.0.5', 'private', true],
  ['172.16.0.1', 'private', true],
  ['192.168.1.1', 'private', true],
  ['fd00::5', 'private', true],
  ['127.0.0.2', 'loopback', true],
  ['::1', 'loopback', true],
  ['169.254.169.254', 'link-local', true],
  ['fe80::1', 'link-local', true],
  ['100.64.0.1', 'shared (CGNAT)', true],
  ['0.0.0.0', 'unspecified', true],
  ['::ffff:10.0.0.5', 'private', true],
  ['64:ff9b::a00:5', 'NAT64 of 10.0.0.5 (private)', true],
  ['64:ff9b:1::808:808', 'local-use NAT64 of 8.8.8.8', true],
  ['2002:7f00:1::1', '6to4 of 127.0.0.1 (loopback)', false],
  ['2001::f5ff:fffe', 'Teredo of 10.0.0.1 (private)', false],
  ['::ffff:0:7f00:1', 'SIIT of 127.0.0.1 (loopback)', false],
  ['::808:808', 'IPv4-compatible of 8.8.8.8', false],
  ['192.0.0.9', 'PCP anycast', false],
  ['192.0.0.170', 'NAT64/DNS64 discovery', false],
  ['192.31.196.1', 'AS112 anycast', false],
  ['192.52.193.1', 'AMT anycast', false],
  ['192.88.99.1', '6to4 relay anycast (deprecated)', false],
  ['2001:1::1', 'PCP anycast', false],
  ['2001:20::1', 'ORCHIDv2', false],
  ['5f00::1', 'SRv6 SID', false],
  ['100::1', 'discard-only', false],
  ['fe00::1', 'reserved', false],
  ['224.0.0.1', 'multicast', false],
  ['ff02::1', 'multicast', false],
  ['240.0.0.1', 'reserved', false],
  ['255.255.255.255', 'broadcast', false],
];

const refusedAs = (address: string, kind: string, internal: boolean) =>
  `URL host resolves to a ${kind} address (${address})${internal ? '; set allowPrivateHosts to ingest from internal hosts' : ', which is never fetched: only global unicast addresses are'}`;

/** `target.test` answers `address`; `wiki.test` answers loopback. */
const resolverFor =
  (...addresses: string[]): HostResolver =>
  async (hostname) => {
    if (hostname === 'wiki.test') return [{ address: '127.0.0.1', family: 4 }];
    if (hostname !== 'target.test') throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
  };

/** How the URL parser writes a literal host: IPv6 bracketed and compressed. */
const literal = (address: string) => (address.includes(':') ? `[${address}]` : address);
const parsedHost = (address: string) => new URL(`http://${literal(address)}/`).hostname.replace(/^\[|\]$/g, '');

async function refusal(promise: Promise<unknown>): Promise<RuntimeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(RuntimeError.isInstance(error)).toBe(true);
  return error as RuntimeError;
}

describe('safeFetch: only global unicast', () => {
  it.each(CLASSES)('refuses %s (%s) by name and as a literal, before connecting', async (address, kind, internal) => {
    const byName = await refusal(safeFetch('http://target.test/page', { maxBytes: 1000, resolve: resolverFor(address) }));
    expect(byName.status).toBe(400);
    expect(byName.message).toBe(refusedAs(address, kind, internal));
    const host = parsedHost(address);
    const asLiteral = await refusal(safeFetch(`http://${literal(address)}:${port}/page`, { maxBytes: 1000 }));
    expect(asLiteral.message).toBe(refusedAs(host, kind, internal));
  });

  it.each(CLASSES)('refuses a redirect to %s (%s), by name and as a literal; the target is never asked', async (address, kind, internal) => {
    const resolve = resolverFor(address);
    for (const [to, shown] of [
      [`http://target.test:${port}/page`, address],
      [`http://${literal(address)}:${port}/page`, parsedHost(address)],
    ] as const) {
      asked.length = 0;
      // The first hop is loopback, allowed by name; the allowance does not follow the redirect.
      const error = await refusal(safeFetch(`http://wiki.test:${port}/redirect?to=${encodeURIComponent(to)}`, { maxBytes: 1000, resolve, allowPrivateHosts: ['wiki.test'] }));
      expect(error.message).toBe(refusedAs(shown, kind, internal));
      expect(asked).toEqual([`wiki.test:${port}/redirect?to=${encodeURIComponent(to)}`]);
    }
  });

  it.each(CLASSES)('lets allowPrivateHosts lift %s (%s) only when internal, and only for the hosts it names', async (address, kind, internal) => {
    const resolve = resolverFor(address);
    const outcome = (allowPrivateHosts: boolean | string[]) =>
      checkUrl('http://target.test/', { resolve, allowPrivateHosts }).then(
        (url) => `allowed ${url.hostname}`,
        (error: Error) => error.message,
      );
    const lifted = internal ? 'allowed target.test' : refusedAs(address, kind, false);
    expect(await outcome(['target.test'])).toBe(lifted);
    expect(await outcome(true)).toBe(lifted);
    const other = await refusal(checkUrl('http://target.test/', { resolve, allowPrivateHosts: ['wiki.test'] }));
    expect(other.message).toBe(refusedAs(address, kind, internal));
  });

  it('refuses a host when any answer is refused, global ones among them; accepts NAT64 of a global address', async () => {
    const mixed = await refusal(checkUrl('http://target.test/', { resolve: resolverFor('8.8.8.8', '2606:4700::1111', '64:ff9b::a00:1') }));
    expect(mixed.message).toBe(refusedAs('64:ff9b::a00:1', 'NAT64 of 10.0.0.1 (private)', true));
    const documentation = await refusal(checkUrl('http://target.test/', { resolve: resolverFor('2001:4860:4860::8888', '2001:db8::1') }));
    expect(documentation.message).toBe(refusedAs('2001:db8::1', 'documentation', true));
    // An IPv6-only network with DNS64 reaches every IPv4 site this way.
    expect((await checkUrl('http://target.test/', { resolve: resolverFor('64:ff9b::808:808', '::ffff:8.8.4.4', '2001:4860:4860::8888') })).hostname).toBe('target.test');
  });

  it('normalises numeric and mixed-case spellings in the URL before the check', async () => {
    for (const [url, shown, kind] of [
      ['http://3221225994/', '192.0.2.10', 'documentation'],
      ['http://0xc0.0.2.10/', '192.0.2.10', 'documentation'],
      ['http://198.18.0x0.1/', '198.18.0.1', 'benchmarking'],
      ['http://[64:FF9B::10.0.0.1]/', '64:ff9b::a00:1', 'NAT64 of 10.0.0.1 (private)'],
      ['http://[0:0:0:0:0:FFFF:192.0.2.10]/', '::ffff:c000:20a', 'documentation'],
      ['http://[2001:DB8:0:0::1]/', '2001:db8::1', 'documentation'],
    ] as const) {
      expect((await refusal(checkUrl(url))).message, url).toBe(refusedAs(shown, kind, true));
    }
  });
});
