import { decodeUnreserved } from '../core/unreserved-escapes.ts';

/**
 * The URL form of the JSON-RPC, bundler and WebSocket endpoints: `/v1/{rpc|bundler|ws}/{chain}/{network}/{apiKey}`
 * (wallets and tools such as MetaMask or Foundry take a URL and nothing else). The key is the fifth
 * segment whatever follows it; these helpers find it and mask it, so no log line, metric label or
 * error message shows more than its prefix.
 */
const keyPathForm = /^(\/v1\/(?:rpc|bundler|ws)\/[^/?#]*\/[^/?#]*\/)([^/?#]+)/i;

/** Anything shaped like one of our keys, anywhere in a URL (also percent-encoded, `svc%5Ftest%5F…`). */
const keyLookalike = /svc(?:_|%5f)(?:test|live)(?:_|%5f)[^/?#&]*/gi;
const mayHoldKey = /svc/i;
const ourKeyPrefix = /^svc(?:_|%5f)(?:test|live)(?:_|%5f)/i;

/** As long as the prefix the dashboard shows for a key (`svc_test_` and 4 characters): it identifies, it does not unlock. */
const keyPrefixLength = 13;

/** The key segment of a path-form URL (percent-decoded as the router decodes it), or undefined for any other URL. */
export function apiKeyInPath(url: string): string | undefined {
  const segment = keyPathForm.exec(decodeUnreserved(url))?.[2];
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * What of a key a log line may show: our keys' prefix, and of anything else (a mistyped key, another
 * provider's) at most 4 characters and never more than a quarter of it, then `…`.
 * @example maskApiKey('svc_test_4fRk…50 characters') // 'svc_test_4fRk…'
 */
export function maskApiKey(key: string): string {
  const shown = ourKeyPrefix.test(key) ? keyPrefixLength : Math.min(4, Math.floor(key.length / 4));
  return `${key.slice(0, shown)}…`;
}

/**
 * The URL with the key of the path form, and anything else shaped like one of our keys, masked.
 * Percent-encoded unreserved characters are decoded first (`/%761/rpc/…/%73vc_test_…` is the router's
 * `/v1/rpc/…/svc_test_…`): what is masked is what the router reads, however the client spelled it, and
 * the URL shown is that decoded form.
 *
 * Why mask after decoding rather than refuse such paths: a refused request is logged too, with the URL
 * as sent, so the mask must decode whichever is chosen, and with it the rule holds for every line
 * (the query's `%61piKey=` included). Refusing on top would break clients and proxies that encode
 * (`%7E`, `%5F`) for no gain in the logs. Every other place that reads the path as text (the /v1
 * guards and CORS in src/http/server.ts, the WebSocket's path match) decodes the same way, and the
 * shipped haproxy config normalises the path before its rules and its log read it.
 * Runs for every access log line: the common cases (no key, the URL form) take no regular-expression replace.
 * @example maskKeysInUrl('/v1/rpc/ethereum/devnet/svc_test_4fRk…') // '/v1/rpc/ethereum/devnet/svc_test_4fRk…'
 */
export function maskKeysInUrl(given: string): string {
  return maskKeysInDecodedUrl(decodeUnreserved(given));
}

/** Query parameters whose values are secrets and never reach a log line. */
const secretQueryParams = /([?&](?:apiKey|api_key|token|key)=)[^&#]*/gi;

/** The dashboard's one-time sign-in links carry their token in the path. */
const signInLinkPrefix = '/dashboard/sign-in/';

/**
 * The URL as a log line may show it: secret query parameters masked, an API key in the path cut to its
 * prefix, whatever the spelling (percent-encoded unreserved characters are decoded first, once: `%61piKey=`
 * is `apiKey=`, `/%64ashboard/` is `/dashboard/`).
 */
export function redactUrl(given: string): string {
  const url = decodeUnreserved(given);
  if (url.startsWith(signInLinkPrefix)) return `${signInLinkPrefix}[redacted]`;
  const masked = maskKeysInDecodedUrl(url);
  // Most URLs have no query: skip the regular expression for them (it runs for every access log line).
  return masked.includes('?') ? masked.replace(secretQueryParams, '$1[redacted]') : masked;
}

function maskKeysInDecodedUrl(url: string): string {
  const found = keyPathForm.exec(url);
  if (found === null) return maskKeyLookalikes(url);
  const [whole, head, key] = found as unknown as [string, string, string];
  return `${maskKeyLookalikes(head)}${maskApiKey(key)}${maskKeyLookalikes(url.slice(whole.length))}`;
}

function maskKeyLookalikes(text: string): string {
  return mayHoldKey.test(text) ? text.replace(keyLookalike, maskApiKey) : text;
}
