/**
 * @module net/address-registry.test
 * The special-purpose registries through `refuseAddress`, with many spellings per class: dotted
 * IPv4, IPv6 compressed and expanded, mixed-case hex, `::ffff:` dotted and hex, zone ids, leading
 * zeros where Node's `isIP` accepts them, and every IPv4-embedding IPv6 form decoded.
 */
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { IPV4_BLOCKS, IPV6_BLOCKS, IPV6_EMBEDDINGS } from './address-registry.js';
import { classifyAddress, refuseAddress } from './addresses.js';

const refused: [string, string][] = [
  // Documentation (RFC 5737, RFC 3849, RFC 9637).
  ...['192.0.2.10', '192.0.2.0', '192.0.2.255', '198.51.100.7', '203.0.113.254', '::ffff:192.0.2.10', '::FFFF:C000:020A', '0:0:0:0:0:ffff:192.0.2.10', '0000:0000:0000:0000:0000:FFFF:c000:20a', '[::ffff:203.0.113.1]'].map(
    (a): [string, string] => [a, 'documentation'],
  ),
  ...['2001:db8::1', '2001:DB8:0:0:0:0:0:1', '2001:0db8:ffff:ffff:ffff:ffff:ffff:ffff', '2001:Db8::1%eth0', '[2001:db8::]', '3fff::1', '3FFF:0FFF:ffff::1', '3fff:0:0:0:0:0:0:0'].map(
    (a): [string, string] => [a, 'documentation'],
  ),
  // Benchmarking (RFC 2544, RFC 5180).
  ...['198.18.0.0', '198.18.0.1', '198.19.255.255', '::ffff:198.18.0.1', '::ffff:c612:1', '2001:2::1', '2001:0002:0000:ffff::abcd'].map((a): [string, string] => [a, 'benchmarking']),
  // The old classes, in new spellings.
  ['127.0.0.1', 'loopback'],
  ['::ffff:7F00:0001', 'loopback'],
  ['0000:0000:0000:0000:0000:0000:0000:0001', 'loopback'],
  ['00::1', 'loopback'],
  ['::ffff:127.0.0.1%lo', 'loopback'],
  ['10.1.2.3', 'private'],
  ['FD00::1', 'private'],
  ['169.254.169.254', 'link-local'],
  ['FE80::1%eth0', 'link-local'],
  ['100.64.0.1', 'shared (CGNAT)'],
  ['0.0.0.0', 'unspecified'],
  ['0:0:0:0:0:0:0:0', 'unspecified'],
  // NAT64, the Well-Known Prefix: named by what it translates to.
  ['64:ff9b::10.0.0.1', 'NAT64 of 10.0.0.1 (private)'],
  ['64:FF9B::A00:1', 'NAT64 of 10.0.0.1 (private)'],
  ['0064:ff9b:0000:0000:0000:0000:0a00:0001', 'NAT64 of 10.0.0.1 (private)'],
  ['64:ff9b::127.0.0.1', 'NAT64 of 127.0.0.1 (loopback)'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 of 169.254.169.254 (link-local)'],
  ['64:ff9b::192.0.2.33', 'NAT64 of 192.0.2.33 (documentation)'],
  ['64:ff9b::c612:1', 'NAT64 of 198.18.0.1 (benchmarking)'],
  ['64:ff9b::224.0.0.1', 'NAT64 of 224.0.0.1 (multicast)'],
  // NAT64, the local-use prefix: refused whatever it embeds.
  ['64:ff9b:1::8.8.8.8', 'local-use NAT64 of 8.8.8.8'],
  ['64:FF9B:1:abcd::a00:1', 'local-use NAT64 of 10.0.0.1 (private)'],
  // 6to4: refused whatever it embeds.
  ['2002:7f00:1::1', '6to4 of 127.0.0.1 (loopback)'],
  ['2002:7F00:0001:0:0:0:0:1', '6to4 of 127.0.0.1 (loopback)'],
  ['2002:a00:1::', '6to4 of 10.0.0.1 (private)'],
  ['2002:c000:20a::1', '6to4 of 192.0.2.10 (documentation)'],
  ['2002:808:808::1', '6to4 of 8.8.8.8'],
  // Teredo: the client's address is inverted in the low 32 bits (RFC 4380's example first).
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo of 192.0.2.45 (documentation)'],
  ['2001::f5ff:fffe', 'Teredo of 10.0.0.1 (private)'],
  ['2001:0000:4136:E378:8000:EC77:F7F7:F7F7', 'Teredo of 8.8.8.8'],
  // IPv4-compatible (deprecated): a non-global address keeps its class.
  ['::127.0.0.1', 'loopback'],
  ['::7f00:1', 'loopback'],
  ['::10.0.0.1', 'private'],
  ['::192.0.2.1', 'documentation'],
  ['::8.8.8.8', 'IPv4-compatible of 8.8.8.8'],
  ['0:0:0:0:0:0:808:808', 'IPv4-compatible of 8.8.8.8'],
  // SIIT (::ffff:0:0:0/96).
  ['::ffff:0:127.0.0.1', 'SIIT of 127.0.0.1 (loopback)'],
  ['0:0:0:0:ffff:0:a00:1', 'SIIT of 10.0.0.1 (private)'],
  ['::ffff:0:808:808', 'SIIT of 8.8.8.8'],
  // 192.0.0.0/24 and its more specific entries.
  ['192.0.0.1', 'IPv4 service continuity (DS-Lite)'],
  ['192.0.0.8', 'IPv4 dummy'],
  ['192.0.0.9', 'PCP anycast'],
  ['192.0.0.10', 'TURN anycast'],
  ['192.0.0.170', 'NAT64/DNS64 discovery'],
  ['192.0.0.171', 'NAT64/DNS64 discovery'],
  ['192.0.0.200', 'IETF protocol assignment'],
  // Anycast services and identifiers the registry calls globally reachable.
  ['192.31.196.1', 'AS112 anycast'],
  ['192.175.48.6', 'AS112 anycast'],
  ['192.52.193.1', 'AMT anycast'],
  ['192.88.99.1', '6to4 relay anycast (deprecated)'],
  ['2001:1::1', 'PCP anycast'],
  ['2001:1::2', 'TURN anycast'],
  ['2001:1::3', 'DNS-SD SRP anycast'],
  ['2001:3::1', 'AMT anycast'],
  ['2001:4:112::1', 'AS112 anycast'],
  ['2620:4F:8000::42', 'AS112 anycast'],
  ['2001:10::1', 'ORCHID (deprecated)'],
  ['2001:20::1', 'ORCHIDv2'],
  ['2001:30::1', 'drone remote ID (DET)'],
  // The rest of 2001::/23.
  ['2001:1::4', 'IETF protocol assignment'],
  ['2001:1ff:ffff::1', 'IETF protocol assignment'],
  // Outside 2000::/3.
  ['5f00::1', 'SRv6 SID'],
  ['100::1', 'discard-only'],
  ['100:0:0:1::1', 'dummy prefix'],
  ['100:0:0:2::1', 'reserved'],
  ['fe00::1', 'reserved'],
  ['fbff::1', 'reserved'],
  ['4000::1', 'reserved'],
  ['1::1', 'reserved'],
  ['::1:0:0:1', 'reserved'],
  ['ff05::1:3', 'multicast'],
  ['224.0.0.251', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  // Not an address Node accepts (leading zeros in IPv4): refused, never guessed at.
  ['010.0.0.1', 'reserved'],
  ['0127.0.0.1', 'reserved'],
  ['::ffff:127.000.0.1', 'reserved'],
];

describe('refuseAddress: only global unicast passes', () => {
  it.each(refused)('refuses %s as %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each([
    '8.8.8.8',
    '192.0.1.255',
    '192.0.3.0',
    '198.17.255.255',
    '198.20.0.0',
    '198.51.99.255',
    '198.51.101.0',
    '203.0.112.255',
    '203.0.114.0',
    '192.88.98.255',
    '192.88.100.0',
    '192.31.195.255',
    '192.31.197.0',
    '::ffff:8.8.8.8',
    '::FFFF:0808:0808',
    '64:ff9b::8.8.8.8',
    '64:FF9B::808:808',
    '0064:ff9b:0000:0000:0000:0000:0808:0808',
    '2001:200::1',
    '2001:db7:ffff::1',
    '2001:db9::1',
    '2001:200:1::1',
    '3fff:1000::1',
    '2003::1',
    '2620:4f:8001::1',
    '2001:4860:4860::8888',
    '2606:4700:4700::1111',
    '2A00:1450:4001:82B::200E',
  ])('accepts global unicast %s, including the neighbours of refused blocks', (address) => {
    expect(isIP(address.replace(/^\[|\]$/g, ''))).not.toBe(0);
    expect(refuseAddress(address)).toBeUndefined();
  });

  it('lets allowPrivateHosts lift internal classes only', () => {
    const internal = ['127.0.0.1', '10.0.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '192.0.2.10', '198.18.0.1', '2001:db8::1', '3fff::1', '2001:2::1', 'fd00::1', 'fe80::1', '::', '::ffff:10.0.0.1', '64:ff9b::a00:1', '64:ff9b:1::808:808', '::127.0.0.1'];
    const never = ['224.0.0.1', '240.0.0.1', '255.255.255.255', 'ff02::1', '192.0.0.9', '192.31.196.1', '2001:1::1', '2002:7f00:1::1', '2001::f5ff:fffe', '::ffff:0:7f00:1', '::8.8.8.8', '64:ff9b::e000:1', '5f00::1', 'fe00::1', 'not-an-address'];
    for (const a of internal) expect(refuseAddress(a), a).toMatchObject({ internal: true });
    for (const a of never) expect(refuseAddress(a), a).toMatchObject({ internal: false });
  });

  it('holds well-formed data: every CIDR parses, its base address is refused, and no CIDR is listed twice', () => {
    for (const block of [...IPV4_BLOCKS, ...IPV6_BLOCKS, ...IPV6_EMBEDDINGS]) {
      const [address, bits] = block.cidr.split('/') as [string, string];
      const family = isIP(address);
      expect(family, block.cidr).not.toBe(0);
      expect(Number(bits), block.cidr).toBeLessThanOrEqual(family === 4 ? 32 : 128);
      // The block's own base address is refused under the block's name, or, for an embedding, its form.
      expect(classifyAddress(address), block.cidr).toBeDefined();
      expect(block.rfc, block.cidr).toMatch(/^RFC \d+/);
    }
    expect(new Set(IPV4_BLOCKS.map((b) => b.cidr)).size).toBe(IPV4_BLOCKS.length);
    expect(new Set(IPV6_BLOCKS.map((b) => b.cidr)).size).toBe(IPV6_BLOCKS.length);
  });
});
