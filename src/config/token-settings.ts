import { dirname, resolve } from 'node:path';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { addressSchema, closedObject, identifierSchema } from './json-schema-parts.ts';

/** A token contract, or `native` for the chain's own coin (ETH on Ethereum). */
const priceContractSchema = { type: 'string', pattern: '^(0x[0-9a-fA-F]{40}|native)$' } as const satisfies JSONSchema;

/** YAML `tokens:` section: where USD prices and logos come from. */
export const tokenSettingsSchema = closedObject({
  /** Fixed USD prices, e.g. for stablecoins or a devnet's sample token. */
  prices: {
    type: 'array',
    items: closedObject(
      {
        chain: identifierSchema,
        network: identifierSchema,
        contract: priceContractSchema,
        usd: { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' },
      },
      ['chain', 'contract', 'usd'],
    ),
  },
  /** Chainlink-style aggregators (latestRoundData + decimals) on the same network as the token. */
  price_feeds: {
    type: 'array',
    items: closedObject(
      { chain: identifierSchema, network: identifierSchema, contract: priceContractSchema, aggregator: addressSchema },
      ['chain', 'contract', 'aggregator'],
    ),
  },
  /** A token list file (tokenlists.org format) for logos. */
  token_list: { type: 'string', minLength: 1 },
});

/** Where a token's USD price comes from: a fixed value or an on-chain aggregator. */
export interface TokenPriceConfig {
  readonly chain: string;
  /** Absent: every network of the chain. */
  readonly network?: string;
  /** Lower-case. */
  readonly contract: string;
  readonly usd?: string;
  readonly aggregator?: string;
}

export interface TokensConfig {
  readonly prices: readonly TokenPriceConfig[];
  readonly tokenList?: string;
}

/** `configFile`: the YAML file that names the token list, whose path is relative to that file. */
export function buildTokens(
  section: FromSchema<typeof tokenSettingsSchema> | undefined,
  configFile: string | undefined,
  cwd: string,
): TokensConfig {
  const tokens = section ?? {};
  const prices = [
    ...(tokens.prices ?? []).map((entry) => ({ ...entry, contract: entry.contract.toLowerCase() })),
    ...(tokens.price_feeds ?? []).map((entry) => ({
      ...entry,
      contract: entry.contract.toLowerCase(),
      aggregator: entry.aggregator.toLowerCase(),
    })),
  ];
  const base = configFile ? dirname(resolve(cwd, configFile)) : cwd;
  return { prices, tokenList: tokens.token_list ? resolve(base, tokens.token_list) : undefined };
}
