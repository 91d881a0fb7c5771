import type { Address } from 'viem';
import type { Network } from '../chains/registry.ts';
import type { NftStandard } from '../db/tables/chain-index.ts';
import type { ChainReads } from './chain-reads.ts';
import type { DocumentLoader } from './metadata/load-document.ts';
import { parseMetadata } from './metadata/parse-metadata.ts';
import type { NftMetadataRecord, NftStore, TokenKey } from './store.ts';

export interface TokenRef {
  readonly network: Network;
  readonly key: TokenKey;
  readonly standard: NftStandard;
}

/**
 * A failed fetch is kept (so a broken URI is not fetched on every request) but tried again in the
 * background when a request finds it older than this.
 */
export const failedMetadataRetryMs = 10 * 60 * 1000;

/**
 * Token metadata, read through the `nft_metadata` cache: fetched on the first request (waiting at most
 * about two metadata timeouts), stored with its failure if it fails, refetched on demand.
 */
export function createTokenMetadata(deps: {
  store: NftStore;
  loader: DocumentLoader;
  readsFor: (network: Network) => ChainReads;
  /** Bounds the wait of a request for a first fetch. */
  waitMs: number;
  /** Called when a request finds a failed record old enough to retry. */
  retryInBackground: (token: TokenRef) => void;
}) {
  const inFlight = new Map<string, Promise<NftMetadataRecord>>();
  const id = (key: TokenKey) => `${key.network}/${key.contract}/${key.tokenId}`;

  async function fetchRecord({ network, key, standard }: TokenRef): Promise<Omit<NftMetadataRecord, 'fetchedAt'>> {
    const empty = { name: null, description: null, imageUrl: null, traits: [] };
    const uri = await deps.readsFor(network).tokenUri(key.contract as Address, standard, BigInt(key.tokenId));
    if (!uri.ok) return { ...empty, tokenUri: null, metadataError: uri.reason };
    const loaded = await deps.loader.load(uri.value);
    if (!loaded.ok) return { ...empty, tokenUri: uri.value, metadataError: loaded.reason };
    const parsed = parseMetadata(loaded.document);
    return {
      tokenUri: uri.value,
      name: parsed.name,
      description: parsed.description,
      imageUrl: parsed.image,
      traits: parsed.traits,
      metadataError: null,
    };
  }

  /** Fetches and stores; concurrent fetches of one token share one. */
  function fetchAndStore(token: TokenRef): Promise<NftMetadataRecord> {
    const key = id(token.key);
    const running = inFlight.get(key);
    if (running) return running;
    const started = fetchRecord(token)
      .then((record) => deps.store.saveMetadata(token.key, record))
      .finally(() => inFlight.delete(key));
    inFlight.set(key, started);
    return started;
  }

  async function waitBounded(work: Promise<NftMetadataRecord>): Promise<NftMetadataRecord> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<NftMetadataRecord>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({
            tokenUri: null,
            name: null,
            description: null,
            imageUrl: null,
            traits: [],
            metadataError: 'metadata is still being fetched; retry shortly',
            fetchedAt: new Date(),
          }),
        deps.waitMs,
      );
    });
    // The fetch goes on and stores its result after a late answer.
    work.catch(() => {});
    try {
      return await Promise.race([work, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    /** The cached record, or a first fetch. */
    async get(token: TokenRef): Promise<NftMetadataRecord> {
      const cached = await deps.store.findMetadata(token.key);
      if (!cached) return waitBounded(fetchAndStore(token));
      if (cached.metadataError !== null && Date.now() - cached.fetchedAt.getTime() > failedMetadataRetryMs) {
        deps.retryInBackground(token);
      }
      return cached;
    },

    /** Fetches again, after any fetch already under way (it may have read the old URI). */
    async refresh(token: TokenRef): Promise<NftMetadataRecord> {
      await inFlight.get(id(token.key))?.catch(() => {});
      return waitBounded(fetchAndStore(token));
    },

    /** For the background fetcher: fetch and store, unbounded by a request's patience. */
    fetchAndStore,

    /** For the background fetcher, when the metadata changed: fetch again after any fetch under way. */
    async refetch(token: TokenRef): Promise<NftMetadataRecord> {
      await inFlight.get(id(token.key))?.catch(() => {});
      return fetchAndStore(token);
    },

    /** Resolves when no fetch is under way (shutdown). */
    async settled(): Promise<void> {
      await Promise.allSettled([...inFlight.values()]);
    },
  };
}

export type TokenMetadata = ReturnType<typeof createTokenMetadata>;
