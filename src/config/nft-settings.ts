import type { FromSchema } from 'json-schema-to-ts';
import { closedObject, httpUrlSchema, integerIn } from './json-schema-parts.ts';

/** YAML `nfts:` section: how NFT metadata is fetched. */
export const nftSettingsSchema = closedObject({
  ipfs_gateway: httpUrlSchema,
  arweave_gateway: httpUrlSchema,
  metadata_timeout_ms: integerIn(100, 60_000),
  metadata_max_bytes: integerIn(1024, 50 * 1024 * 1024),
});

export interface NftsConfig {
  /** Base URL that `ipfs://CID/path` is appended to, ending in '/'. */
  readonly ipfsGateway: string;
  readonly arweaveGateway: string;
  readonly metadataTimeoutMs: number;
  readonly metadataMaxBytes: number;
}

export function buildNfts(nfts: FromSchema<typeof nftSettingsSchema> = {}): NftsConfig {
  const withSlash = (url: string) => (url.endsWith('/') ? url : `${url}/`);
  return {
    ipfsGateway: withSlash(nfts.ipfs_gateway ?? 'https://ipfs.io/ipfs/'),
    arweaveGateway: withSlash(nfts.arweave_gateway ?? 'https://arweave.net/'),
    metadataTimeoutMs: nfts.metadata_timeout_ms ?? 5000,
    metadataMaxBytes: nfts.metadata_max_bytes ?? 1024 * 1024,
  };
}
