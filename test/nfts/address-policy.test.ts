import { describe, expect, it } from 'vitest';
import { classifyAddress, refusedAddressReason } from '../../src/core/address-policy.ts';

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['100.127.255.255', 'shared (CGNAT)'],
    ['100.128.0.1', 'public'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'reserved'],
    ['198.18.0.1', 'reserved'],
  ])('IPv4 %s is %s', (ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind);
  });

  it.each([
    ['2606:4700:4700::1111', 'public'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:c0a8:0101::1', 'private'],
    ['2002:0808:0808::1', 'public'],
    ['::10.0.0.1', 'private'],
  ])('IPv6 %s is %s', (ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind);
  });
});

describe('refusedAddressReason', () => {
  it('lets only public addresses through in production mode', () => {
    expect(refusedAddressReason('8.8.8.8', 'production')).toBeUndefined();
    expect(refusedAddressReason('127.0.0.1', 'production')).toBe('address 127.0.0.1 is loopback');
    expect(refusedAddressReason('10.0.0.1', 'production')).toBe('address 10.0.0.1 is private');
    expect(refusedAddressReason('::ffff:169.254.169.254', 'production')).toBe('address ::ffff:169.254.169.254 is link-local');
  });

  it('allows loopback, and only loopback, in development mode', () => {
    expect(refusedAddressReason('127.0.0.1', 'development')).toBeUndefined();
    expect(refusedAddressReason('::1', 'development')).toBeUndefined();
    expect(refusedAddressReason('::ffff:127.0.0.1', 'development')).toBeUndefined();
    expect(refusedAddressReason('192.168.0.10', 'development')).toBe('address 192.168.0.10 is private');
    expect(refusedAddressReason('169.254.169.254', 'development')).toBe('address 169.254.169.254 is link-local');
  });
});
