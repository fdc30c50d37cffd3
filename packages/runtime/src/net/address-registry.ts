/**
 * @module net/address-registry
 * The address blocks a server-side fetch refuses, as data: the IANA IPv4 and IPv6
 * Special-Purpose Address Registries (RFC 6890, updated by RFC 8190; the registries at
 * https://www.iana.org/assignments/iana-ipv4-special-registry and
 * https://www.iana.org/assignments/iana-ipv6-special-registry, as of 2025), plus IPv4
 * multicast (RFC 5771), the IPv6 address space outside 2000::/3 (RFC 4291: only 2000::/3 is
 * global unicast) and the IPv6 forms that embed an IPv4 address.
 *
 * The rule is "global unicast only": a block is listed when the registry says it is not
 * globally reachable, and also when the registry says it is but it is anycast to the nearest
 * service instance (often the operator's own gateway) or a non-routable identifier, never a
 * web server. Those are marked `anyway` with the reason.
 *
 * `internal` marks the blocks `allowPrivateHosts` lifts: addresses a network may give its own
 * hosts (loopback, private, link-local, shared, unique-local) and the documentation and
 * benchmarking ranges, which some networks use internally (this deployment's own network was
 * found in 192.0.2.0/24; fake-IP DNS proxies answer from 198.18.0.0/15). Multicast,
 * broadcast, reserved space, anycast services and tunnels are never lifted.
 */

/** One refused block, by CIDR. */
export interface Block {
  cidr: string;
  /** The class a refusal names. */
  name: string;
  /** The registry entry's RFC. */
  rfc: string;
  /** allowPrivateHosts lifts the refusal (see the module notes). */
  internal?: true;
  /** The registry says "Globally Reachable: True"; why the block is refused anyway. */
  anyway?: string;
}

const ANYCAST = 'anycast to the nearest instance of a service, not a unicast web host';
const IDENTIFIER = 'an identifier, not a routable locator';

/**
 * IPv4. The most specific block that holds an address decides (192.0.0.9/32 inside
 * 192.0.0.0/24); every block here is refused.
 */
export const IPV4_BLOCKS: readonly Block[] = [
  // "This network"; 0.0.0.0/32 "this host". As a destination it reaches this machine.
  { cidr: '0.0.0.0/8', name: 'unspecified', rfc: 'RFC 791, RFC 1122', internal: true },
  { cidr: '10.0.0.0/8', name: 'private', rfc: 'RFC 1918', internal: true },
  { cidr: '100.64.0.0/10', name: 'shared (CGNAT)', rfc: 'RFC 6598', internal: true },
  { cidr: '127.0.0.0/8', name: 'loopback', rfc: 'RFC 1122', internal: true },
  // Includes 169.254.169.254, the cloud metadata service.
  { cidr: '169.254.0.0/16', name: 'link-local', rfc: 'RFC 3927', internal: true },
  { cidr: '172.16.0.0/12', name: 'private', rfc: 'RFC 1918', internal: true },
  { cidr: '192.0.0.0/24', name: 'IETF protocol assignment', rfc: 'RFC 6890' },
  { cidr: '192.0.0.0/29', name: 'IPv4 service continuity (DS-Lite)', rfc: 'RFC 7335' },
  { cidr: '192.0.0.8/32', name: 'IPv4 dummy', rfc: 'RFC 7600' },
  { cidr: '192.0.0.9/32', name: 'PCP anycast', rfc: 'RFC 7723', anyway: ANYCAST },
  { cidr: '192.0.0.10/32', name: 'TURN anycast', rfc: 'RFC 8155', anyway: ANYCAST },
  { cidr: '192.0.0.170/32', name: 'NAT64/DNS64 discovery', rfc: 'RFC 8880, RFC 7050' },
  { cidr: '192.0.0.171/32', name: 'NAT64/DNS64 discovery', rfc: 'RFC 8880, RFC 7050' },
  { cidr: '192.0.2.0/24', name: 'documentation', rfc: 'RFC 5737 (TEST-NET-1)', internal: true },
  { cidr: '192.31.196.0/24', name: 'AS112 anycast', rfc: 'RFC 7535', anyway: ANYCAST },
  { cidr: '192.52.193.0/24', name: 'AMT anycast', rfc: 'RFC 7450', anyway: ANYCAST },
  // Deprecated; the registry keeps the entry with its fields "N/A".
  { cidr: '192.88.99.0/24', name: '6to4 relay anycast (deprecated)', rfc: 'RFC 7526' },
  { cidr: '192.168.0.0/16', name: 'private', rfc: 'RFC 1918', internal: true },
  { cidr: '192.175.48.0/24', name: 'AS112 anycast', rfc: 'RFC 7534', anyway: ANYCAST },
  { cidr: '198.18.0.0/15', name: 'benchmarking', rfc: 'RFC 2544', internal: true },
  { cidr: '198.51.100.0/24', name: 'documentation', rfc: 'RFC 5737 (TEST-NET-2)', internal: true },
  { cidr: '203.0.113.0/24', name: 'documentation', rfc: 'RFC 5737 (TEST-NET-3)', internal: true },
  // Not in the special-purpose registry: the multicast registry's whole block.
  { cidr: '224.0.0.0/4', name: 'multicast', rfc: 'RFC 5771' },
  { cidr: '240.0.0.0/4', name: 'reserved', rfc: 'RFC 1112' },
  { cidr: '255.255.255.255/32', name: 'broadcast', rfc: 'RFC 8190, RFC 919' },
];

/**
 * How an IPv6 form that embeds an IPv4 address is judged, the IPv4 address decoded from it:
 * - `same`: it is the IPv4 address (a dual-stack socket connects to it): judged as that address;
 * - `translated`: a translator reaches the IPv4 address: allowed when that is global, refused
 *   as `<name> of <v4> (<its class>)` otherwise, lifted when its class is;
 * - `compatible`: refused; a non-global IPv4 address under its own class, a global one as
 *   `<name> of <v4>` (the form is deprecated and nothing routes it);
 * - `refused`: refused whatever it embeds, named `<name> of <v4>` with the IPv4 class if any.
 */
export type EmbeddingRule = 'same' | 'translated' | 'compatible' | 'refused';

/** Where the IPv4 address sits: the low 32 bits, 6to4's bits 16-47, or Teredo's client (inverted low 32). */
export type V4Position = 'low32' | '6to4' | 'teredo';

export interface Embedding extends Block {
  rule: EmbeddingRule;
  v4: V4Position;
}

/**
 * IPv6 forms that embed an IPv4 address. The most specific block wins over IPV6_BLOCKS too
 * (::1/128 beats ::/96; 2001::/32 beats 2001::/23).
 */
export const IPV6_EMBEDDINGS: readonly Embedding[] = [
  { cidr: '::ffff:0:0/96', name: 'IPv4-mapped', rfc: 'RFC 4291', rule: 'same', v4: 'low32' },
  // Deprecated by RFC 4291; ::/128 and ::1/128 are more specific and listed below.
  { cidr: '::/96', name: 'IPv4-compatible', rfc: 'RFC 4291', rule: 'compatible', v4: 'low32' },
  // SIIT's "IPv4-translated" form (RFC 2765, obsoleted by RFC 6145); outside 2000::/3.
  { cidr: '::ffff:0:0:0/96', name: 'SIIT', rfc: 'RFC 2765', rule: 'refused', v4: 'low32' },
  // The Well-Known Prefix: the registry says globally reachable, as is what it translates to
  // when that is global (an IPv6-only network with DNS64 reaches every IPv4 site this way).
  { cidr: '64:ff9b::/96', name: 'NAT64', rfc: 'RFC 6052', rule: 'translated', v4: 'low32' },
  // Local-use prefix, not globally reachable: the operator's own translator. Its prefix length
  // inside the /48 is the operator's choice; the class names the /96 reading (low 32 bits).
  { cidr: '64:ff9b:1::/48', name: 'local-use NAT64', rfc: 'RFC 8215', rule: 'refused', v4: 'low32', internal: true },
  // Teredo: the registry says "N/A". The client's IPv4 address is obfuscated (inverted) in the
  // low 32 bits; a Teredo relay would send the packet there. Refused whatever it embeds.
  { cidr: '2001::/32', name: 'Teredo', rfc: 'RFC 4380, RFC 8190', rule: 'refused', v4: 'teredo' },
  // 6to4: the registry says "N/A"; deprecated relays (RFC 7526). A 6to4 route would tunnel the
  // packet to the embedded IPv4 address; refused whatever it embeds.
  { cidr: '2002::/16', name: '6to4', rfc: 'RFC 3056', rule: 'refused', v4: '6to4' },
];

/** IPv6 blocks without an embedded IPv4 address. Outside 2000::/3 an unlisted address is `reserved`. */
export const IPV6_BLOCKS: readonly Block[] = [
  { cidr: '::/128', name: 'unspecified', rfc: 'RFC 4291', internal: true },
  { cidr: '::1/128', name: 'loopback', rfc: 'RFC 4291', internal: true },
  { cidr: '100::/64', name: 'discard-only', rfc: 'RFC 6666' },
  { cidr: '100:0:0:1::/64', name: 'dummy prefix', rfc: 'RFC 9780' },
  // Inside 2000::/3, 2001::/23 is "not globally reachable unless a more specific entry says so".
  // Those that say so are anycast services or identifiers, so the whole /23 is refused.
  { cidr: '2001::/23', name: 'IETF protocol assignment', rfc: 'RFC 2928' },
  { cidr: '2001:1::1/128', name: 'PCP anycast', rfc: 'RFC 7723', anyway: ANYCAST },
  { cidr: '2001:1::2/128', name: 'TURN anycast', rfc: 'RFC 8155', anyway: ANYCAST },
  { cidr: '2001:1::3/128', name: 'DNS-SD SRP anycast', rfc: 'RFC 9665', anyway: ANYCAST },
  { cidr: '2001:2::/48', name: 'benchmarking', rfc: 'RFC 5180', internal: true },
  { cidr: '2001:3::/32', name: 'AMT anycast', rfc: 'RFC 7450', anyway: ANYCAST },
  { cidr: '2001:4:112::/48', name: 'AS112 anycast', rfc: 'RFC 7535', anyway: ANYCAST },
  { cidr: '2001:10::/28', name: 'ORCHID (deprecated)', rfc: 'RFC 4843' },
  { cidr: '2001:20::/28', name: 'ORCHIDv2', rfc: 'RFC 7343', anyway: IDENTIFIER },
  { cidr: '2001:30::/28', name: 'drone remote ID (DET)', rfc: 'RFC 9374', anyway: IDENTIFIER },
  { cidr: '2001:db8::/32', name: 'documentation', rfc: 'RFC 3849', internal: true },
  { cidr: '2620:4f:8000::/48', name: 'AS112 anycast', rfc: 'RFC 7534', anyway: ANYCAST },
  { cidr: '3fff::/20', name: 'documentation', rfc: 'RFC 9637', internal: true },
  { cidr: '5f00::/16', name: 'SRv6 SID', rfc: 'RFC 9602' },
  // Unique-local; the class says "private" as RFC 1918's does.
  { cidr: 'fc00::/7', name: 'private', rfc: 'RFC 4193, RFC 8190', internal: true },
  { cidr: 'fe80::/10', name: 'link-local', rfc: 'RFC 4291', internal: true },
  // Site-local: deprecated (RFC 3879) but still routed inside some networks.
  { cidr: 'fec0::/10', name: 'private', rfc: 'RFC 3879', internal: true },
  { cidr: 'ff00::/8', name: 'multicast', rfc: 'RFC 4291' },
];
