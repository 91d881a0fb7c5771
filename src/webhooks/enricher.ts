import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ChainRegistry } from '../chains/registry.ts';
import { anyOf } from '../db/any-of.ts';
import type { Tables } from '../db/tables.ts';
import type { TokenService } from '../tokens/service.ts';
import type { Enricher } from './matcher.ts';

/**
 * Token symbols and decimals from the index's token_metadata (fetched from the chain the first time
 * a contract is seen, and remembered), and NFT metadata when the background fetcher has it.
 */
export function createEnricher(deps: {
  db: Kysely<Tables>;
  chains: ChainRegistry;
  tokens: TokenService;
  logger: Logger;
}): Enricher {
  const known = new Map<string, { symbol: string; decimals: number } | null>();
  return {
    async tokens(network, contracts) {
      const answer = new Map<string, { symbol: string; decimals: number } | null>();
      const missing = contracts.filter((contract) => {
        const hit = known.get(`${network}/${contract}`);
        if (hit !== undefined) answer.set(contract, hit);
        return hit === undefined;
      });
      if (missing.length === 0) return answer;
      const rows = await deps.db
        .selectFrom('token_metadata')
        .select(['contract', 'symbol', 'decimals'])
        .where('network', '=', network)
        .where(anyOf('contract', missing))
        .execute();
      for (const row of rows) {
        const facts = { symbol: row.symbol, decimals: row.decimals };
        known.set(`${network}/${row.contract}`, facts);
        answer.set(row.contract, facts);
      }
      const [chain, name] = network.split('/') as [string, string];
      for (const contract of missing.filter((c) => !answer.has(c))) {
        try {
          const metadata = await deps.tokens.metadata(deps.chains.get(chain, name), contract as `0x${string}`);
          const facts = { symbol: metadata.symbol, decimals: metadata.decimals };
          known.set(`${network}/${contract}`, facts);
          answer.set(contract, facts);
        } catch (error) {
          // Not an ERC-20 that answers symbol()/decimals(): the payload says null, and the next event asks again.
          deps.logger.debug({ err: error, contract }, 'token facts unknown for a webhook payload');
          answer.set(contract, null);
        }
      }
      return answer;
    },

    async nfts(network, keys) {
      const answer = new Map<string, Record<string, unknown>>();
      if (keys.length === 0) return answer;
      const rows = await deps.db
        .selectFrom('nft_metadata')
        .select(['contract', 'token_id', 'name', 'description', 'image_url', 'traits'])
        .where('network', '=', network)
        .where((eb) => eb.or(keys.map((key) => eb.and([eb('contract', '=', key.contract), eb('token_id', '=', key.tokenId)]))))
        .execute();
      for (const row of rows) {
        answer.set(`${row.contract}/${row.token_id}`, {
          name: row.name,
          description: row.description,
          image_url: row.image_url,
          traits: row.traits,
        });
      }
      return answer;
    },
  };
}
