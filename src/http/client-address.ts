import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';

/** Whether the `hop`-th address from the socket (0: the socket's peer) is a proxy we trust. */
export type TrustProxy = (address: string, hop: number) => boolean;

/** The `trust_proxy` setting (validated addresses and CIDR ranges) as a function; undefined when it is empty. */
export function compileTrustProxy(entries: readonly string[]): TrustProxy | undefined {
  return entries.length === 0 ? undefined : proxyAddr.compile([...entries]);
}

/**
 * The client's address: the socket's peer, or, when that peer is a trusted proxy, the X-Forwarded-For
 * entries walked from the right while each hop is trusted, stopping at the first one that is not. The
 * leftmost entries are whatever the client wrote and are never believed past an untrusted hop. The
 * same rule as Fastify's `trustProxy` (both use proxy-addr). IPv4-mapped IPv6 comes back as IPv4.
 * @example
 * // socket peer 127.0.0.1, `X-Forwarded-For: 6.6.6.6, 203.0.113.9`, trust_proxy [127.0.0.1]
 * clientAddress(req, compileTrustProxy(['127.0.0.1'])) // '203.0.113.9'
 */
export function clientAddress(req: IncomingMessage, trust: TrustProxy | undefined): string | undefined {
  if (trust === undefined) return plainAddress(req.socket.remoteAddress);
  const addresses = proxyAddr.all(req, trust);
  return plainAddress(addresses[addresses.length - 1]);
}

/** `::ffff:127.0.0.1` as `127.0.0.1`: an IPv4 client on a dual-stack socket is an IPv4 client. */
export function plainAddress(address: string | undefined): string | undefined {
  return address?.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}
