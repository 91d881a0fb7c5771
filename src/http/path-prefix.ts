/**
 * Whether a request URL is `prefix` or below it, query string or not.
 * @example isUnder('/v1/rpc/ethereum/devnet', '/v1') // true; isUnder('/v1x', '/v1') // false
 */
export function isUnder(url: string, prefix: string): boolean {
  if (!url.startsWith(prefix)) return false;
  const next = url[prefix.length];
  return next === undefined || next === '/' || next === '?';
}
