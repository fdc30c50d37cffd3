/**
 * @module server/client-address
 * Who a request comes from, for the failed-authentication limiter and the logs. Behind a proxy
 * or load balancer every request arrives from the proxy, so X-Forwarded-For is believed, but
 * only when the connection comes from a configured trusted proxy (`trusted_proxies` /
 * TRUSTED_PROXIES), and then read from the right, skipping the trusted hops: the left-most
 * entries are whatever the client chose to send.
 */
import { BlockList, isIP } from 'node:net';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { ConfigurationError } from '../errors.js';

/** Parses addresses and CIDRs (IPv4 and IPv6); a bad entry fails the start, naming it. */
export function trustedProxyList(entries: readonly string[], setting: string): BlockList | undefined {
  if (entries.length === 0) return undefined;
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/');
    const family = isIP(address ?? '');
    const type = family === 6 ? 'ipv6' : 'ipv4';
    const bits = prefix === undefined ? undefined : Number(prefix);
    if (family === 0 || (prefix !== undefined && (!/^\d+$/.test(prefix) || bits! > (family === 6 ? 128 : 32)))) {
      throw new ConfigurationError(`${setting}: "${entry}" is not an IP address or CIDR (such as 10.0.0.0/8 or fd00::/8)`);
    }
    if (bits === undefined) list.addAddress(address!, type);
    else list.addSubnet(address!, bits, type);
  }
  return list;
}

function trusted(list: BlockList, address: string): boolean {
  const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  const family = isIP(plain);
  return family !== 0 && list.check(plain, family === 6 ? 'ipv6' : 'ipv4');
}

export function clientAddress(c: Context, proxies: BlockList | undefined): string {
  let peer: string;
  try {
    peer = getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    // Not served over a socket (app.fetch in tests): one shared bucket.
    return 'unknown';
  }
  if (!proxies || !trusted(proxies, peer)) return peer;
  const hops = (c.req.header('x-forwarded-for') ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (isIP(hop) === 0) return peer;
    if (!trusted(proxies, hop)) return hop;
  }
  return hops[0] ?? peer;
}
