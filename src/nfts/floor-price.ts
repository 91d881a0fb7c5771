import type { Network } from '../chains/registry.ts';

export interface FloorPrice {
  /** Decimal string in ETH (the chain's native unit). */
  readonly eth: string;
  /** Decimal string in USD, or null when the source has no USD price. */
  readonly usd: string | null;
}

/**
 * Where collection floor prices come from (a marketplace API, an on-chain order book). None is
 * built in: with no source configured, `floor_price_eth` and `floor_price_usd` are null.
 */
export interface FloorPriceSource {
  /** The floor of `contract` (lower-case), or null when the source does not know it. */
  floorPrice(network: Network, contract: string): Promise<FloorPrice | null>;
}
