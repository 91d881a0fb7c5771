/**
 * Percent-encoded unreserved characters (RFC 3986 section 2.3: letters, digits, `-`, `.`, `_`, `~`):
 * `%76` for `v`, `%5F` for `_`. They mean the same as the character itself (section 6.2.2.2), so the
 * router serves `/%761/rpc/…` as `/v1/rpc/…`, but anything comparing the text (a log mask, a prefix
 * check, a proxy's rule) sees another path.
 */
const percentEscape = /%([0-9A-Fa-f]{2})/g;
const unreserved = /^[A-Za-z0-9._~-]$/;

function unreservedOf(hex: string): string | undefined {
  const char = String.fromCharCode(Number.parseInt(hex, 16));
  return unreserved.test(char) ? char : undefined;
}

/**
 * The text with its percent-encoded unreserved characters decoded; any other escape (`%2F`, `%25`) is
 * left as it is, so the result decodes to what the text did.
 * @example decodeUnreserved('/%761/rpc/%2F') // '/v1/rpc/%2F'
 */
export function decodeUnreserved(text: string): string {
  if (!text.includes('%')) return text;
  return text.replace(percentEscape, (whole, hex: string) => unreservedOf(hex) ?? whole);
}

/**
 * The first percent-encoded unreserved character of the text and what it stands for, or undefined.
 * @example firstEncodedUnreserved('/v1/%72pc') // { escape: '%72', char: 'r' }
 */
export function firstEncodedUnreserved(text: string): { escape: string; char: string } | undefined {
  if (!text.includes('%')) return undefined;
  for (const [whole, hex] of text.matchAll(percentEscape)) {
    const char = unreservedOf(hex!);
    if (char !== undefined) return { escape: whole, char };
  }
  return undefined;
}
