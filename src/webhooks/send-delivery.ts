import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import { type PrivateDestinations, privateDestinations } from '../config/private-destinations.ts';
import { refusedAddressReason } from '../core/address-policy.ts';
import { withTraceparent } from '../tracing/tracing.ts';
import { postOnce } from './post-once.ts';
import type { Mode } from './url-policy.ts';

export interface SendResult {
  /** 2xx: delivered. */
  readonly ok: boolean;
  readonly status: number | null;
  /** The first 4 KiB of the response body. */
  readonly responseBody: string | null;
  readonly retryAfter: string | undefined;
  readonly latencyMs: number;
  readonly error: string | null;
}

export const responseBodyKeptBytes = 4096;

export interface DeliverySender {
  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult>;
  close(): Promise<void>;
}

class RefusedAddress extends Error {
  readonly code = 'EREFUSEDADDRESS';
}

/**
 * POSTs deliveries. Every new connection resolves its host and refuses the addresses the mode does
 * not allow (production: private, loopback, link-local and other special ranges; development also
 * allows loopback), then connects to the address it checked, so a second DNS answer cannot move it.
 * Redirects are not followed (a 3xx is a failed attempt). One deadline bounds the whole exchange.
 */
export function createDeliverySender(options: {
  mode: Mode;
  timeoutMs: number;
  connections?: number;
  /** Private ranges webhooks may go to (`webhooks.private_destinations`). */
  privateDestinations?: PrivateDestinations;
}): DeliverySender {
  const inPrivateDestination = options.privateDestinations ?? privateDestinations();
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const allowed = addresses.filter(
        (entry) => refusedAddressReason(entry.address, options.mode) === undefined || inPrivateDestination.allows(entry.address),
      );
      if (allowed.length === 0) {
        const reason = refusedAddressReason(addresses[0]?.address ?? hostname, options.mode) ?? 'no address';
        return callback(new RefusedAddress(`${hostname}: ${reason}; webhooks go to public endpoints`), '', 0);
      }
      if (lookupOptions.all) (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, allowed);
      else callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
  const agent = new Agent({
    connect: { lookup, timeout: Math.min(options.timeoutMs, 10_000) },
    connections: options.connections ?? 64,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 30_000,
  });

  return {
    async send(url, headers, body) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      try {
        // Not part of the signed text: a receiver that traces continues the delivery's trace.
        const answer = await postOnce(agent, url, withTraceparent(headers), body, {
          timeoutMs: options.timeoutMs,
          keepBytes: responseBodyKeptBytes,
        });
        const { status, retryAfter } = answer;
        const responseBody = answer.body;
        const ok = status >= 200 && status < 300;
        return {
          ok,
          status,
          responseBody,
          retryAfter,
          latencyMs: elapsed(),
          error: ok
            ? null
            : status >= 300 && status < 400
              ? `answered ${status}: redirects are not followed`
              : `answered ${status}`,
        };
      } catch (error) {
        return {
          ok: false,
          status: null,
          responseBody: null,
          retryAfter: undefined,
          latencyMs: elapsed(),
          error: describe(error, url, options.timeoutMs),
        };
      }
    },
    close: () => agent.close(),
  };
}

function describe(error: unknown, url: string, timeoutMs: number): string {
  const err = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.code ?? err.cause?.code;
  const host = new URL(url).host;
  if (
    err.name === 'TimeoutError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return `no answer within ${timeoutMs / 1000} s`;
  }
  if (code === 'EREFUSEDADDRESS') return err.message ?? err.cause?.message ?? 'address refused';
  if (err.cause instanceof RefusedAddress) return err.cause.message;
  if (code === 'ECONNREFUSED') return `connection to ${host} refused`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `host ${new URL(url).hostname} not found`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return `connection to ${host} reset`;
  if (code?.startsWith('ERR_TLS') || code?.includes('CERT')) return `TLS error from ${host} (${code})`;
  return `could not deliver to ${host}${code ? ` (${code})` : ''}`;
}
