/**
 * @module net/addresses
 * Which IP addresses a server-side fetch may reach: global unicast only. Fetching a
 * caller-supplied URL from inside the deployment would otherwise let that caller read the cloud
 * metadata service, databases and admin ports on the private network (SSRF). The refused
 * blocks are the IANA special-purpose registries, as data in `address-registry.ts`; an address
 * is refused by the most specific block that holds it, and an IPv6 address outside 2000::/3
 * that no block names is `reserved`.
 *
 * Addresses are parsed into numbers (IPv6 as a bigint) and compared on those, never on string
 * prefixes, so every spelling (`::ffff:7f00:1`, `0:0:0:0:0:ffff:127.0.0.1`, `::FFFF:127.0.0.1`,
 * `0000::0001`, a zone id) lands in the same block. IPv6 forms that embed an IPv4 address
 * (mapped, compatible, SIIT, NAT64, 6to4, Teredo) are decoded and judged by that address (see
 * `EmbeddingRule`).
 */
import { isIPv4, isIPv6 } from 'node:net';
import { IPV4_BLOCKS, IPV6_BLOCKS, IPV6_EMBEDDINGS, type Block, type Embedding, type V4Position } from './address-registry.js';

/** Why an address is refused, e.g. `loopback`, `documentation`, `NAT64 of 10.0.0.1 (private)`. */
export type AddressClass = string;

export interface AddressRefusal {
  /** The class the refusal names. */
  class: AddressClass;
  /**
   * `allowPrivateHosts` lifts this refusal: an address a network gives its own hosts (loopback,
   * private, link-local, shared, documentation, benchmarking, or a form embedding one).
   */
  internal: boolean;
}

interface Parsed<N> {
  base: N;
  bits: number;
}

function v4(text: string): number {
  return text.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function cidr4(block: Block): Parsed<number> {
  const [address, bits] = block.cidr.split('/') as [string, string];
  return { base: v4(address), bits: Number(bits) };
}

function cidr6(block: Block): Parsed<bigint> {
  const [address, bits] = block.cidr.split('/') as [string, string];
  return { base: v6(address), bits: Number(bits) };
}

const TABLE4 = IPV4_BLOCKS.map((block) => ({ block, ...cidr4(block) }));
const TABLE6 = [...IPV6_BLOCKS, ...IPV6_EMBEDDINGS].map((block) => ({ block, ...cidr6(block) }));

function in4(n: number, range: Parsed<number>): boolean {
  const size = 2 ** (32 - range.bits);
  return n >= range.base && n < range.base + size;
}

function in6(n: bigint, range: Parsed<bigint>): boolean {
  const shift = BigInt(128 - range.bits);
  return n >> shift === range.base >> shift;
}

/** The most specific block holding the address (the tables are small; a scan is enough). */
function mostSpecific<N, B extends Parsed<N> & { block: Block }>(table: readonly B[], n: N, holds: (n: N, range: B) => boolean): B | undefined {
  let best: B | undefined;
  for (const entry of table) if (holds(n, entry) && (!best || entry.bits > best.bits)) best = entry;
  return best;
}

function refusal4(n: number): AddressRefusal | undefined {
  const block = mostSpecific(TABLE4, n, in4)?.block;
  return block ? { class: block.name, internal: block.internal === true } : undefined;
}

/** The eight 16-bit groups of an IPv6 address (already known to be valid), as one number. */
function v6(text: string): bigint {
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
  const right = rest === undefined ? undefined : hexGroups(rest);
  const groups = right === undefined ? left : [...left, ...Array.from({ length: 8 - left.length - right.length }, () => 0), ...right];
  return groups.reduce((n, g) => (n << 16n) | BigInt(g), 0n);
}

function hexGroups(text: string): number[] {
  return text === '' ? [] : text.split(':').map((g) => parseInt(g, 16));
}

/** The IPv4 address an embedding carries. */
function embedded(n: bigint, position: V4Position): number {
  const low32 = Number(n & 0xffffffffn);
  if (position === 'low32') return low32;
  // Teredo: 2001:0:<server v4>:<flags>:<port>:<client v4>, port and client inverted (RFC 4380 §4).
  if (position === 'teredo') return ~low32 >>> 0;
  // 6to4: 2002:<v4>::/48 (RFC 3056 §2).
  return Number((n >> 80n) & 0xffffffffn);
}

function dotted(n: number): string {
  return [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff].join('.');
}

function judgeEmbedding(n: bigint, form: Embedding): AddressRefusal | undefined {
  const inner = embedded(n, form.v4);
  const verdict = refusal4(inner);
  const named = `${form.name} of ${dotted(inner)}${verdict ? ` (${verdict.class})` : ''}`;
  switch (form.rule) {
    case 'same':
      return verdict;
    case 'translated':
      return verdict && { class: named, internal: verdict.internal };
    case 'compatible':
      return verdict ?? { class: named, internal: false };
    case 'refused':
      return { class: named, internal: form.internal === true };
  }
}

function refusal6(n: bigint): AddressRefusal | undefined {
  const block = mostSpecific(TABLE6, n, in6)?.block;
  if (block && 'rule' in block) return judgeEmbedding(n, block as Embedding);
  if (block) return { class: block.name, internal: block.internal === true };
  // Only 2000::/3 is global unicast (RFC 4291 §2.4; the rest is "Reserved by IETF").
  if (n >> 125n !== 1n) return { class: 'reserved', internal: false };
  return undefined;
}

/**
 * Why an address must not be fetched, or undefined when it is global unicast. Anything that is
 * not an IP address is refused as `reserved`: the caller must resolve names first.
 */
export function refuseAddress(address: string): AddressRefusal | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(bare)) return refusal4(v4(bare));
  if (!isIPv6(bare)) return { class: 'reserved', internal: false };
  return refusal6(v6(bare));
}

/** The class of a refused address, or undefined when the address is global unicast. */
export function classifyAddress(address: string): AddressClass | undefined {
  return refuseAddress(address)?.class;
}
