/**
 * @module net/addresses
 * Which IP addresses a server-side fetch must not reach. Fetching a caller-supplied URL from
 * inside the deployment would otherwise let that caller read the cloud metadata service,
 * databases and admin ports on the private network (SSRF). Parsing is done here, on the
 * numbers, rather than with string prefixes, so every spelling of an address (`::ffff:7f00:1`,
 * `0:0:0:0:0:ffff:127.0.0.1`, `::1`) lands in the same range.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** Why an address is refused; undefined for a public address. */
export type AddressClass = 'loopback' | 'private' | 'link-local' | 'shared (CGNAT)' | 'unspecified' | 'multicast' | 'reserved' | 'broadcast';

interface Range4 {
  base: number;
  bits: number;
  kind: AddressClass;
}

function v4(text: string): number {
  return text.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

const V4_RANGES: Range4[] = [
  { base: v4('0.0.0.0'), bits: 8, kind: 'unspecified' },
  { base: v4('10.0.0.0'), bits: 8, kind: 'private' },
  { base: v4('100.64.0.0'), bits: 10, kind: 'shared (CGNAT)' },
  { base: v4('127.0.0.0'), bits: 8, kind: 'loopback' },
  // Includes 169.254.169.254, the cloud metadata service.
  { base: v4('169.254.0.0'), bits: 16, kind: 'link-local' },
  { base: v4('172.16.0.0'), bits: 12, kind: 'private' },
  { base: v4('192.168.0.0'), bits: 16, kind: 'private' },
  { base: v4('224.0.0.0'), bits: 4, kind: 'multicast' },
  { base: v4('255.255.255.255'), bits: 32, kind: 'broadcast' },
  { base: v4('240.0.0.0'), bits: 4, kind: 'reserved' },
];

function classify4(n: number): AddressClass | undefined {
  for (const r of V4_RANGES) {
    const size = 2 ** (32 - r.bits);
    if (n >= r.base && n < r.base + size) return r.kind;
  }
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (already known to be valid). */
function groups6(text: string): number[] {
  let address = text.split('%')[0]!;
  // A trailing dotted quad (`::ffff:1.2.3.4`) is two groups.
  const lastColon = address.lastIndexOf(':');
  const tail = address.slice(lastColon + 1);
  if (tail.includes('.')) {
    const n = v4(tail);
    address = `${address.slice(0, lastColon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, rest] = address.split('::') as [string, string | undefined];
  const left = hexGroups(head);
  if (rest === undefined) return left;
  const right = hexGroups(rest);
  return [...left, ...Array.from({ length: 8 - left.length - right.length }, () => 0), ...right];
}

function hexGroups(text: string): number[] {
  return text === '' ? [] : text.split(':').map((g) => parseInt(g, 16));
}

/**
 * The class of a refused address, or undefined when the address is public. Anything that is
 * not an IP address is refused as `reserved`: the caller must resolve names first.
 */
export function classifyAddress(address: string): AddressClass | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(bare)) return classify4(v4(bare));
  if (!isIPv6(bare)) return 'reserved';
  const g = groups6(bare);
  const zeroPrefix = g.slice(0, 5).every((x) => x === 0);
  // IPv4-mapped (::ffff:a.b.c.d) reaches the IPv4 address on a dual-stack socket.
  if (zeroPrefix && g[5] === 0xffff) return classify4(g[6]! * 65536 + g[7]!);
  if (g.every((x) => x === 0)) return 'unspecified';
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'loopback';
  const first = g[0]!;
  if ((first & 0xfe00) === 0xfc00) return 'private';
  if ((first & 0xffc0) === 0xfe80) return 'link-local';
  // Site-local (fec0::/10) is deprecated but still routed inside some networks.
  if ((first & 0xffc0) === 0xfec0) return 'private';
  if ((first & 0xff00) === 0xff00) return 'multicast';
  // The deprecated IPv4-compatible form (::a.b.c.d) embeds an IPv4 address too.
  if (zeroPrefix && g[5] === 0) return classify4(g[6]! * 65536 + g[7]!) ?? 'reserved';
  return undefined;
}
