import type { Logger } from 'pino';
import type { PublicClient } from 'viem';
import type { Network } from '../../chains/registry.ts';
import type { TokenPriceConfig } from '../../config/token-settings.ts';
import { type AggregatorPriceEntry, createAggregatorPriceSource } from './aggregator-price-source.ts';
import { composePriceSources, type PriceSource } from './price-source.ts';
import { createStaticPriceSource, type StaticPriceEntry, type StaticPriceSource } from './static-price-source.ts';

/**
 * The price source the config describes: the static table first (`tokens.prices`), then the
 * on-chain aggregators (`tokens.price_feeds`). The static table takes more entries at run time.
 */
export function createConfiguredPriceSource(deps: {
  entries: readonly TokenPriceConfig[];
  clientFor: (network: Network) => PublicClient;
  logger: Logger;
}): { source: PriceSource; statics: StaticPriceSource } {
  const statics = createStaticPriceSource(
    deps.entries.flatMap((entry): StaticPriceEntry[] => (entry.usd === undefined ? [] : [{ ...entry, usd: entry.usd }])),
  );
  const aggregators = createAggregatorPriceSource({
    entries: deps.entries.flatMap((entry): AggregatorPriceEntry[] =>
      entry.aggregator === undefined ? [] : [{ ...entry, aggregator: entry.aggregator }],
    ),
    clientFor: deps.clientFor,
    onError: (error, feed) => deps.logger.warn({ err: error, ...feed }, 'price feed unreadable; its price is null'),
  });
  return { source: composePriceSources([statics, aggregators]), statics };
}
