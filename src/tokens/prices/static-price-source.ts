import { formatDecimal, parseDecimal } from '../usd-value.ts';
import { type PriceSource, priceKey } from './price-source.ts';

/** A fixed USD price (config `tokens.prices`, or the demo's sample token). */
export interface StaticPriceEntry {
  readonly chain: string;
  /** Absent: every network of the chain. */
  readonly network?: string;
  readonly contract: string;
  readonly usd: string;
}

export interface StaticPriceSource extends PriceSource {
  /** Adds or replaces a price at run time. */
  add(entry: StaticPriceEntry): void;
}

/** Prices from a table; an entry for the exact network wins over a chain-wide one. */
export function createStaticPriceSource(entries: readonly StaticPriceEntry[] = []): StaticPriceSource {
  const table = new Map<string, string>();
  const add = (entry: StaticPriceEntry) => {
    let price: string;
    try {
      price = formatDecimal(parseDecimal(entry.usd));
    } catch (error) {
      throw new Error(`the static price of ${entry.chain} ${entry.contract}: ${(error as Error).message}`);
    }
    table.set(priceKey(entry.chain, entry.network, entry.contract), price);
  };
  for (const entry of entries) add(entry);
  return {
    add,
    async usdPrice(network, contract) {
      const { chain, network: name } = network.config;
      return table.get(priceKey(chain, name, contract)) ?? table.get(priceKey(chain, undefined, contract)) ?? null;
    },
  };
}
