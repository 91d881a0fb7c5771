import type { StoredTokenMetadata, TokenStore } from './store.ts';

export type TokenFacts = Omit<StoredTokenMetadata, 'contract'>;

/** Enough for every token a busy deployment sees; an entry is a few hundred bytes. */
const maxMemoryEntries = 100_000;
/** A contract that failed the ERC-20 probe is not probed again for this long (it may be upgraded). */
const notTokenMemoryMs = 10 * 60 * 1000;

/**
 * Name, symbol and decimals, which do not change: kept in memory, backed by the `token_metadata`
 * table, so the balances hot path needs no query for tokens it has seen.
 */
export function createTokenMetadataCache(store: TokenStore, now: () => number = Date.now) {
  const memory = new Map<string, TokenFacts>();
  const notTokens = new Map<string, number>();
  const key = (network: string, contract: string) => `${network}|${contract}`;

  function remember(network: string, contract: string, facts: TokenFacts) {
    const id = key(network, contract);
    memory.delete(id);
    memory.set(id, facts);
    if (memory.size > maxMemoryEntries) memory.delete(memory.keys().next().value!);
  }

  return {
    /** The known metadata of those contracts (memory, then one query for the rest). */
    async lookup(network: string, contracts: readonly string[]): Promise<Map<string, TokenFacts>> {
      const found = new Map<string, TokenFacts>();
      const missing: string[] = [];
      for (const contract of contracts) {
        const facts = memory.get(key(network, contract));
        if (facts) found.set(contract, facts);
        else missing.push(contract);
      }
      for (const row of await store.findMetadata(network, missing)) {
        const facts = { name: row.name, symbol: row.symbol, decimals: row.decimals };
        remember(network, row.contract, facts);
        found.set(row.contract, facts);
      }
      return found;
    },

    async save(network: string, rows: readonly StoredTokenMetadata[]): Promise<void> {
      await store.saveMetadata(network, rows);
      for (const { contract, ...facts } of rows) remember(network, contract, facts);
    },

    isKnownNotToken(network: string, contract: string): boolean {
      const until = notTokens.get(key(network, contract));
      if (until === undefined) return false;
      if (until > now()) return true;
      notTokens.delete(key(network, contract));
      return false;
    },

    markNotToken(network: string, contract: string): void {
      if (notTokens.size >= maxMemoryEntries) notTokens.clear();
      notTokens.set(key(network, contract), now() + notTokenMemoryMs);
    },
  };
}

export type TokenMetadataCache = ReturnType<typeof createTokenMetadataCache>;
