import { encodeFunctionData, type PublicClient, parseAbi } from 'viem';
import type { Network } from '../chains/registry.ts';
import { decodeTokenText } from '../tokens/token-text.ts';

const symbolCall = encodeFunctionData({ abi: parseAbi(['function symbol() view returns (string)']), functionName: 'symbol' });
/** A contract's symbol does not change in practice; an hour bounds a redeploy at the same address. */
const rememberMs = 60 * 60 * 1000;
const maxRemembered = 10_000;
/** Contracts read for one answer at most: the rest answer `asset: null` until a later call. */
const maxReadsPerCall = 10;

/**
 * NFT contracts' `symbol()` (Alchemy's `asset` of ERC-721 and ERC-1155 transfers), read from the chain
 * once an hour at most; null for a contract without one. A failed read is not remembered.
 */
export function createNftSymbolLookup(clientFor: (network: Network) => PublicClient, now: () => number = Date.now) {
  const known = new Map<string, { symbol: string | null; until: number }>();

  async function read(network: Network, contract: string): Promise<string | null> {
    const key = `${network.config.chain}/${network.config.network}|${contract}`;
    const cached = known.get(key);
    if (cached !== undefined && cached.until > now()) return cached.symbol;
    let symbol: string | null;
    try {
      const { data } = await clientFor(network).call({ to: contract as `0x${string}`, data: symbolCall });
      symbol = data ? (decodeTokenText(data) ?? null) : null;
    } catch (error) {
      // A revert means no symbol; an upstream failure is tried again next time.
      if (!/revert/i.test((error as Error).message ?? '')) return null;
      symbol = null;
    }
    if (known.size >= maxRemembered) known.clear();
    known.set(key, { symbol: symbol === '' ? null : symbol, until: now() + rememberMs });
    return symbol === '' ? null : symbol;
  }

  return {
    async lookup(network: Network, contracts: readonly string[]): Promise<Map<string, string>> {
      const wanted = [...new Set(contracts)].slice(0, maxReadsPerCall);
      const symbols = await Promise.all(wanted.map((contract) => read(network, contract)));
      return new Map(wanted.flatMap((contract, i) => (symbols[i] ? [[contract, symbols[i]] as const] : [])));
    },
  };
}

export type NftSymbolLookup = ReturnType<typeof createNftSymbolLookup>;
