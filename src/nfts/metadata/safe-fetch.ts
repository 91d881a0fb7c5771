import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { refusedAddressReason } from '../../core/address-policy.ts';

export interface SafeFetchOptions {
  readonly mode: 'development' | 'production';
  /** For the whole fetch, redirects included. */
  readonly timeoutMs: number;
  /** Bodies longer than this are not read past it. */
  readonly maxBytes: number;
  readonly maxRedirects?: number;
  /**
   * Origins the operator configured (the IPFS and Arweave gateways): their addresses are not checked,
   * so a gateway on the local network works. Redirects away from them are checked as usual.
   */
  readonly trustedOrigins?: readonly string[];
  /** Host name resolution; default the system resolver (tests resolve names to chosen addresses). */
  readonly resolve?: (hostname: string) => Promise<LookupAddress[]>;
}

export type SafeFetchResult =
  | { readonly ok: true; readonly url: string; readonly contentType: string | null; readonly body: Buffer }
  | { readonly ok: false; readonly reason: string };

export interface SafeFetcher {
  /** GETs `url`, following up to `maxRedirects` redirects; every failure is a reason, never a throw. */
  fetch(url: string): Promise<SafeFetchResult>;
}

/** Enough for IPFS gateway → subdomain gateway → content hops, not enough for a redirect loop to cost much. */
const defaultMaxRedirects = 5;
const redirectStatuses = new Set([301, 302, 303, 307, 308]);

class FetchRefused extends Error {}

function systemResolve(hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );
}

/** The system resolver has its own, longer timeouts: the fetch's deadline wins. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** A `lookup` that answers with addresses already checked, so the connection cannot be rebound by a second DNS answer. */
function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted =
      options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    const chosen = wanted.length > 0 ? wanted : addresses;
    if (options.all) (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, [...chosen]);
    else callback(null, chosen[0]!.address, chosen[0]!.family);
  };
}

function describeError(error: unknown, host: string): string {
  const code =
    (error as { code?: string; cause?: { code?: string } }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') return `host ${host} not found`;
  if (code === 'ECONNREFUSED') return `connection to ${host} refused`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return `connection to ${host} reset`;
  if (code?.startsWith('ERR_TLS') || code?.includes('CERT')) return `TLS error from ${host} (${code})`;
  return `could not fetch from ${host}${code ? ` (${code})` : ''}`;
}

/** What every hop of one fetcher needs: the options, resolved once. */
interface FetchSettings {
  readonly mode: SafeFetchOptions['mode'];
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly maxRedirects: number;
  readonly resolve: (hostname: string) => Promise<LookupAddress[]>;
  readonly trusted: ReadonlySet<string>;
}

/**
 * An HTTP client for URLs that come from contracts and metadata documents, i.e. from anyone: it
 * resolves the host itself, refuses private, loopback, link-local and other special addresses
 * (loopback is allowed in development mode), connects only to the address it checked, checks again
 * on every redirect, and bounds the time and the bytes it spends.
 */
export function createSafeFetcher(options: SafeFetchOptions): SafeFetcher {
  const settings: FetchSettings = {
    mode: options.mode,
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes,
    maxRedirects: options.maxRedirects ?? defaultMaxRedirects,
    resolve: options.resolve ?? systemResolve,
    trusted: new Set(options.trustedOrigins ?? []),
  };
  return { fetch: (start) => fetchFollowingRedirects(settings, start) };
}

async function fetchFollowingRedirects(settings: FetchSettings, start: string): Promise<SafeFetchResult> {
  const { maxRedirects, timeoutMs } = settings;
  const signal = AbortSignal.timeout(timeoutMs);
  let url: URL;
  try {
    url = new URL(start);
  } catch {
    return { ok: false, reason: 'not a valid URL' };
  }
  try {
    for (let redirects = 0; ; redirects++) {
      const result = await hop(settings, url, signal);
      if (!('redirect' in result)) return result;
      if (redirects >= maxRedirects) return { ok: false, reason: `more than ${maxRedirects} redirects` };
      url = result.redirect;
    }
  } catch (error) {
    if (error instanceof FetchRefused) return { ok: false, reason: error.message };
    if (signal.aborted || /Timeout/.test((error as Error).name ?? '')) {
      return { ok: false, reason: `timeout after ${timeoutMs} ms` };
    }
    return { ok: false, reason: describeError(error, url.host) };
  }
}

async function addressesFor(settings: FetchSettings, url: URL, signal: AbortSignal): Promise<LookupAddress[]> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host);
  const addresses = literal ? [{ address: host, family: literal }] : await untilAborted(settings.resolve(host), signal);
  if (addresses.length === 0) throw new FetchRefused(`host ${host} not found`);
  if (!settings.trusted.has(url.origin)) {
    for (const { address } of addresses) {
      const refused = refusedAddressReason(address, settings.mode);
      if (refused) throw new FetchRefused(refused);
    }
  }
  return addresses;
}

function checkScheme(settings: FetchSettings, url: URL): void {
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && (settings.mode === 'development' || settings.trusted.has(url.origin))) return;
  if (url.protocol === 'http:') throw new FetchRefused('http URLs are refused outside development mode; use https');
  throw new FetchRefused(`unsupported URL scheme '${url.protocol}'`);
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): void }, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      throw new FetchRefused(`response larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

async function hop(settings: FetchSettings, url: URL, signal: AbortSignal): Promise<{ redirect: URL } | SafeFetchResult> {
  const { timeoutMs, maxBytes } = settings;
  checkScheme(settings, url);
  const addresses = await addressesFor(settings, url, signal);
  const agent = new Agent({
    connect: { lookup: pinnedLookup(addresses), timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connections: 1,
  });
  try {
    const response = await request(url, {
      dispatcher: agent,
      signal,
      headers: { accept: 'application/json', 'accept-encoding': 'identity', 'user-agent': 'blockyard-nft-metadata/1' },
    });
    const location = response.headers.location;
    if (redirectStatuses.has(response.statusCode) && typeof location === 'string') {
      await response.body.dump();
      if (!URL.canParse(location, url.href)) return { ok: false, reason: `invalid redirect location from ${url.host}` };
      return { redirect: new URL(location, url) };
    }
    if (response.statusCode < 200 || response.statusCode > 299) {
      await response.body.dump();
      return { ok: false, reason: `HTTP ${response.statusCode} from ${url.host}` };
    }
    const length = Number(response.headers['content-length']);
    if (Number.isFinite(length) && length > maxBytes) {
      response.body.destroy();
      return { ok: false, reason: `response larger than ${maxBytes} bytes` };
    }
    const contentType = typeof response.headers['content-type'] === 'string' ? response.headers['content-type'] : null;
    return { ok: true, url: url.href, contentType, body: await readCapped(response.body, maxBytes) };
  } finally {
    await agent.destroy().catch(() => {});
  }
}
