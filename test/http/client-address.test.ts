import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressRangeList, addressRangeProblem, inAddressRangeList } from '../../src/core/address-ranges.ts';
import { clientAddress, compileTrustProxy, plainAddress, type TrustProxy } from '../../src/http/client-address.ts';

/** A real server on 127.0.0.1 answering with the client address each rule gives. */
describe('the client address', () => {
  let server: Server;
  let port: number;
  const rules: Record<string, TrustProxy | undefined> = {
    none: compileTrustProxy([]),
    local: compileTrustProxy(['127.0.0.1']),
    chain: compileTrustProxy(['127.0.0.0/8', '10.0.0.0/8']),
  };
  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      const rule = new URL(req.url ?? '/', 'http://x').searchParams.get('rule') ?? 'none';
      res.end(clientAddress(req, rules[rule]));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const addressFor = (rule: string, forwardedFor?: string) =>
    new Promise<string>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: `/?rule=${rule}`,
          headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
          timeout: 5_000,
        },
        (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve(body));
        },
      );
      req.on('error', reject);
      req.end();
    });

  it('without trust_proxy: the socket, whatever X-Forwarded-For says', async () => {
    expect(await addressFor('none', '203.0.113.9')).toBe('127.0.0.1');
  });

  it('with a trusted peer: the rightmost entry, never a forged one to its left', async () => {
    expect(await addressFor('local')).toBe('127.0.0.1');
    expect(await addressFor('local', '203.0.113.9')).toBe('203.0.113.9');
    expect(await addressFor('local', '6.6.6.6, 203.0.113.9')).toBe('203.0.113.9');
    // 10.1.2.3 is not trusted by this rule: it is the client, even though a proxy may sit there.
    expect(await addressFor('local', '203.0.113.9, 10.1.2.3')).toBe('10.1.2.3');
  });

  it('through a chain of trusted proxies: walked leftwards while each hop is trusted', async () => {
    expect(await addressFor('chain', '6.6.6.6, 203.0.113.9, 10.1.2.3, 10.9.9.9')).toBe('203.0.113.9');
    // Every hop trusted: the leftmost is all there is.
    expect(await addressFor('chain', '10.0.0.1, 10.0.0.2')).toBe('10.0.0.1');
  });

  it('IPv4-mapped IPv6 counts as IPv4', () => {
    expect(plainAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(plainAddress('::1')).toBe('::1');
    expect(plainAddress('2001:db8::ffff:1')).toBe('2001:db8::ffff:1');
    const list = addressRangeList(['127.0.0.1', '2001:db8::/32']);
    expect(inAddressRangeList(list, '::ffff:127.0.0.1')).toBe(true);
    expect(inAddressRangeList(list, '2001:db8::7')).toBe(true);
    expect(inAddressRangeList(list, '127.0.0.2')).toBe(false);
    expect(inAddressRangeList(list, 'not an address')).toBe(false);
  });

  it.each([
    ['10.0.0.0/33', 'the prefix length must be 0 to 32 for an IPv4 range'],
    ['2001:db8::/129', 'the prefix length must be 0 to 128 for an IPv6 range'],
    ['10.0.0.0/', 'the prefix length must be 0 to 32 for an IPv4 range'],
    ['example.com', "'example.com' is not an IPv4 or IPv6 address"],
  ])('the entry %s is refused: %s', (entry, problem) => {
    expect(addressRangeProblem(entry)).toBe(problem);
  });
});
