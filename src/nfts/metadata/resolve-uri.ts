import { ipfsPath } from './cid.ts';
import { decodeDataUri } from './data-uri.ts';

/** Where IPFS and Arweave references are fetched from; both end in '/' (config `nfts`). */
export interface Gateways {
  readonly ipfsGateway: string;
  readonly arweaveGateway: string;
}

export interface ResolveOptions {
  readonly gateways: Gateways;
  readonly mode: 'development' | 'production';
}

/** How to get a metadata document: fetch a URL, read it inline (data: URI or raw JSON), or not at all. */
export type MetadataSource =
  | { readonly kind: 'fetch'; readonly url: string }
  | { readonly kind: 'inline'; readonly text: string }
  | { readonly kind: 'refused'; readonly reason: string };

function arweaveUrl(uri: string, gateways: Gateways): string | undefined {
  const rest = uri.replace(/^ar:\/*/i, '');
  return rest === '' ? undefined : `${gateways.arweaveGateway}${rest}`;
}

/**
 * Turns a token URI into the place its metadata document is read from. IPFS forms go through the
 * configured IPFS gateway (also `https://other-gateway/ipfs/CID`: public gateways throttle),
 * `ar://` through the Arweave gateway; `http:` only in development mode.
 * @example resolveMetadataUri('ipfs://ipfs/Qm.../1.json', opts) // { kind: 'fetch', url: 'https://ipfs.io/ipfs/Qm.../1.json' }
 */
export function resolveMetadataUri(uri: string, { gateways, mode }: ResolveOptions): MetadataSource {
  const trimmed = uri.trim();
  if (trimmed === '') return { kind: 'refused', reason: 'token URI is empty' };
  if (/^data:/i.test(trimmed)) {
    const decoded = decodeDataUri(trimmed);
    return decoded.ok ? { kind: 'inline', text: decoded.text } : { kind: 'refused', reason: decoded.reason };
  }
  // Some contracts return the JSON document itself instead of a URI.
  if (trimmed.startsWith('{')) return { kind: 'inline', text: trimmed };
  const ipfs = ipfsPath(trimmed);
  if (ipfs !== undefined) return { kind: 'fetch', url: `${gateways.ipfsGateway}${ipfs}` };
  if (/^ipfs:/i.test(trimmed)) return { kind: 'refused', reason: 'IPFS URI without a content id' };
  if (/^ar:/i.test(trimmed)) {
    const url = arweaveUrl(trimmed, gateways);
    return url ? { kind: 'fetch', url } : { kind: 'refused', reason: 'Arweave URI without a transaction id' };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme === 'https') return { kind: 'fetch', url: trimmed };
  if (scheme === 'http') {
    return mode === 'development'
      ? { kind: 'fetch', url: trimmed }
      : { kind: 'refused', reason: 'http URLs are refused outside development mode; use https' };
  }
  if (scheme) return { kind: 'refused', reason: `unsupported URI scheme '${scheme}:'` };
  return { kind: 'refused', reason: 'token URI is not a URL, an IPFS content id or a data: URI' };
}

/**
 * The URL a browser can load an image from: IPFS and Arweave references through the configured
 * gateways; https, http and data: URIs as they are; anything else null.
 * @example imageGatewayUrl('ipfs://Qm.../a.png', gateways) // 'https://ipfs.io/ipfs/Qm.../a.png'
 */
export function imageGatewayUrl(image: string | null, gateways: Gateways): string | null {
  if (image === null) return null;
  const trimmed = image.trim();
  const ipfs = ipfsPath(trimmed);
  if (ipfs !== undefined) return `${gateways.ipfsGateway}${ipfs}`;
  if (/^ar:/i.test(trimmed)) return arweaveUrl(trimmed, gateways) ?? null;
  if (/^(https?|data):/i.test(trimmed)) return trimmed;
  return null;
}
