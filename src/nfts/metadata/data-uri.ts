export type DecodedDataUri = { ok: true; mediaType: string; text: string } | { ok: false; reason: string };

/**
 * Decodes an RFC 2397 `data:` URI: `data:application/json;base64,eyJ...`, or plain
 * (`data:application/json,{"name":...}`, percent-encoded or not; `;utf8` and `;charset=` accepted).
 */
export function decodeDataUri(uri: string): DecodedDataUri {
  const comma = uri.indexOf(',');
  if (!/^data:/i.test(uri) || comma < 0) return { ok: false, reason: 'malformed data: URI (no comma)' };
  const header = uri
    .slice(5, comma)
    .split(';')
    .map((part) => part.trim());
  const mediaType = (header[0] || 'text/plain').toLowerCase();
  const payload = uri.slice(comma + 1);
  if (header.slice(1).some((part) => part.toLowerCase() === 'base64')) {
    const compact = payload.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) return { ok: false, reason: 'malformed data: URI (invalid base64)' };
    return { ok: true, mediaType, text: Buffer.from(compact, 'base64').toString('utf8') };
  }
  try {
    return { ok: true, mediaType, text: decodeURIComponent(payload) };
  } catch {
    // Not percent-encoded after all: raw JSON with a stray '%'.
    return { ok: true, mediaType, text: payload };
  }
}
