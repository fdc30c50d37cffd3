import { describe, expect, it } from 'vitest';
import { classifyAddress } from './addresses.js';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.5', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.10', 'private'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['100.127.255.255', 'shared (CGNAT)'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
  ])('refuses IPv4 %s as %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.15.255.255', '172.32.0.0', '100.63.255.255', '100.128.0.0', '169.253.255.255', '192.167.255.255', '11.0.0.1', '223.255.255.255'])(
    'accepts public IPv4 %s, including the neighbours of private ranges',
    (address) => {
      expect(classifyAddress(address)).toBeUndefined();
    },
  );

  it.each([
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    // Outside 2000::/3, the only global unicast space (issue 26: global unicast only).
    ['fbff::1', 'reserved'],
    ['fe00::1', 'reserved'],
  ])('refuses IPv6 %s as %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each(['2001:4860:4860::8888', '2606:4700:4700::1111'])('accepts public IPv6 %s', (address) => {
    expect(classifyAddress(address)).toBeUndefined();
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:10.0.0.5', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:192.168.0.1', 'private'],
    ['::ffff:100.64.0.1', 'shared (CGNAT)'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::127.0.0.1', 'loopback'],
  ])('sees through the IPv4-mapped and -compatible form %s (%s)', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('accepts a mapped public IPv4 address and refuses anything that is not an address', () => {
    expect(classifyAddress('::ffff:8.8.8.8')).toBeUndefined();
    expect(classifyAddress('localhost')).toBe('reserved');
    expect(classifyAddress('')).toBe('reserved');
  });
});
