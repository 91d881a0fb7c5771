import type { NftsConfig } from '../../config/nft-settings.ts';
import { resolveMetadataUri } from './resolve-uri.ts';
import { createSafeFetcher, type SafeFetcher } from './safe-fetch.ts';

export type LoadedDocument =
  | { readonly ok: true; readonly document: Record<string, unknown> }
  | { readonly ok: false; readonly reason: string };

/** Reads the JSON document behind a token or contract URI; every failure is a reason for `metadata_error`. */
export interface DocumentLoader {
  load(uri: string): Promise<LoadedDocument>;
}

// Types that are certainly not a JSON document; anything else is tried (gateways label JSON as text/plain or octet-stream).
const binaryContentType = /^(image|video|audio|font)\//i;

function parseJsonObject(text: string): LoadedDocument {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'not a JSON object' };
  return { ok: true, document: value as Record<string, unknown> };
}

export function createDocumentLoader(deps: {
  nfts: NftsConfig;
  mode: 'development' | 'production';
  /** Default: a safe fetcher from the config (the gateways trusted). */
  fetcher?: SafeFetcher;
}): DocumentLoader {
  const { nfts, mode } = deps;
  const fetcher =
    deps.fetcher ??
    createSafeFetcher({
      mode,
      timeoutMs: nfts.metadataTimeoutMs,
      maxBytes: nfts.metadataMaxBytes,
      trustedOrigins: [new URL(nfts.ipfsGateway).origin, new URL(nfts.arweaveGateway).origin],
    });
  return {
    async load(uri) {
      const source = resolveMetadataUri(uri, { gateways: nfts, mode });
      if (source.kind === 'refused') return { ok: false, reason: source.reason };
      if (source.kind === 'inline') {
        if (Buffer.byteLength(source.text) > nfts.metadataMaxBytes) {
          return { ok: false, reason: `metadata larger than ${nfts.metadataMaxBytes} bytes` };
        }
        return parseJsonObject(source.text);
      }
      const fetched = await fetcher.fetch(source.url);
      if (!fetched.ok) return fetched;
      if (fetched.contentType && binaryContentType.test(fetched.contentType)) {
        return { ok: false, reason: `not JSON (content-type ${fetched.contentType.split(';')[0]})` };
      }
      const parsed = parseJsonObject(fetched.body.toString('utf8'));
      if (!parsed.ok && parsed.reason === 'not JSON' && fetched.contentType) {
        return { ok: false, reason: `not JSON (content-type ${fetched.contentType.split(';')[0]})` };
      }
      return parsed;
    },
  };
}
