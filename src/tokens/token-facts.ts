import type { Address } from 'viem';
import type { Network } from '../chains/registry.ts';
import { isAppError } from '../core/errors.ts';
import type { TokenService } from '../tokens/service.ts';

export interface TokenFacts {
  readonly symbol: string;
  readonly decimals: number;
  readonly name?: string;
  readonly logo?: string | null;
}

/** A contract that is not an ERC-20 token is not probed again for this long (as the balances path does). */
const notTokenMs = 10 * 60 * 1000;
const maxRemembered = 10_000;
/** Tokens probed for one answer at most: the rest stay without decimals (value null) until a later call. */
const maxProbesPerCall = 10;

/**
 * Symbol and decimals of ERC-20 contracts the transfers query found no metadata for: read through the
 * token service (its cache, then the chain), which stores them, so the next query joins them itself.
 */
export function createTokenFactsLookup(tokens: TokenService, now: () => number = Date.now) {
  const notTokens = new Map<string, number>();

  async function probe(network: Network, contract: string): Promise<TokenFacts | undefined> {
    const key = `${network.config.chain}/${network.config.network}|${contract}`;
    const until = notTokens.get(key);
    if (until !== undefined && until > now()) return undefined;
    try {
      const { symbol, decimals, name, logo_url } = await tokens.metadata(network, contract as Address);
      return { symbol, decimals, name, logo: logo_url };
    } catch (error) {
      // Not a token (404) is remembered; an upstream failure (503) is tried again next time.
      if (!isAppError(error) || error.code !== 'not_found') return undefined;
      if (notTokens.size >= maxRemembered) notTokens.clear();
      notTokens.set(key, now() + notTokenMs);
      return undefined;
    }
  }

  return {
    /** The facts of those contracts that are tokens; the others are absent. */
    async lookup(network: Network, contracts: readonly string[]): Promise<Map<string, TokenFacts>> {
      const wanted = [...new Set(contracts)].slice(0, maxProbesPerCall);
      const found = await Promise.all(wanted.map((contract) => probe(network, contract)));
      return new Map(wanted.flatMap((contract, i) => (found[i] ? [[contract, found[i]] as const] : [])));
    },
  };
}

export type TokenFactsLookup = ReturnType<typeof createTokenFactsLookup>;
