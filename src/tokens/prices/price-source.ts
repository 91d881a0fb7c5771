import type { Network } from '../../chains/registry.ts';

/** Where a price is wanted: a block the caller's other numbers are valid at (default: the chain head). */
export interface PriceQuery {
  readonly blockNumber?: bigint;
}

/** A pluggable USD price source. */
export interface PriceSource {
  /** The token's USD price as an exact decimal string, or `null` when this source does not know it. */
  usdPrice(network: Network, contract: string, query?: PriceQuery): Promise<string | null>;
}

/** Asks each source in turn; the first one that knows the price answers. */
export function composePriceSources(sources: readonly PriceSource[]): PriceSource {
  return {
    async usdPrice(network, contract, query) {
      for (const source of sources) {
        const price = await source.usdPrice(network, contract, query);
        if (price !== null) return price;
      }
      return null;
    },
  };
}

/** `chain/network/contract` lookups, where an entry without a network covers every network of its chain. */
export function priceKey(chain: string, network: string | undefined, contract: string): string {
  return `${chain}/${network ?? '*'}/${contract.toLowerCase()}`;
}
