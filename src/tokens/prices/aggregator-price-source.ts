import { type Address, decodeFunctionResult, encodeFunctionData, formatUnits, multicall3Abi, type PublicClient } from 'viem';
import { multicall3Address } from '../../chains/public-client.ts';
import type { Network } from '../../chains/registry.ts';
import { multicallRaw } from '../multicall.ts';
import { type PriceSource, priceKey } from './price-source.ts';

/** A token priced by a Chainlink-style aggregator on the token's own network. */
export interface AggregatorPriceEntry {
  readonly chain: string;
  readonly network?: string;
  readonly contract: string;
  readonly aggregator: string;
}

/** Chainlink's slowest feeds update every 24 h when the price is calm; an hour of slack on top. */
export const defaultMaxPriceAgeS = 25 * 60 * 60;
/** A read at "latest" (no block given) is reused this long. */
const latestReuseMs = 1000;

const aggregatorAbi = [
  {
    type: 'function',
    name: 'latestRoundData',
    stateMutability: 'view',
    inputs: [],
    outputs: [
      { name: 'roundId', type: 'uint80' },
      { name: 'answer', type: 'int256' },
      { name: 'startedAt', type: 'uint256' },
      { name: 'updatedAt', type: 'uint256' },
      { name: 'answeredInRound', type: 'uint80' },
    ],
  },
  { type: 'function', name: 'decimals', stateMutability: 'view', inputs: [], outputs: [{ type: 'uint8' }] },
] as const;

const roundCall = encodeFunctionData({ abi: aggregatorAbi, functionName: 'latestRoundData' });
const decimalsCall = encodeFunctionData({ abi: aggregatorAbi, functionName: 'decimals' });
const timestampCall = encodeFunctionData({ abi: multicall3Abi, functionName: 'getCurrentBlockTimestamp' });

export interface AggregatorPriceSourceOptions {
  entries: readonly AggregatorPriceEntry[];
  clientFor: (network: Network) => PublicClient;
  /** An answer older than this (against the block's timestamp) is stale: `null`. */
  maxAgeS?: number;
  onError?: (error: unknown, feed: { network: string; aggregator: string }) => void;
  now?: () => number;
}

/**
 * Prices from `latestRoundData()` and `decimals()`, read at the caller's block together with that
 * block's timestamp; stale, non-positive or unreadable answers are `null`. One read per feed and block.
 */
export function createAggregatorPriceSource(options: AggregatorPriceSourceOptions): PriceSource {
  const maxAgeS = BigInt(options.maxAgeS ?? defaultMaxPriceAgeS);
  const now = options.now ?? Date.now;
  const feeds = new Map(options.entries.map((entry) => [priceKey(entry.chain, entry.network, entry.contract), entry.aggregator]));
  const recent = new Map<string, { block: string; until: number; price: Promise<string | null> }>();

  async function read(network: Network, aggregator: Address, blockNumber: bigint): Promise<string | null> {
    const client = options.clientFor(network);
    const [round, decimals, timestamp] = await multicallRaw(
      client,
      [roundCall, decimalsCall]
        .map((callData) => ({ target: aggregator, callData }))
        .concat({ target: multicall3Address, callData: timestampCall }),
      blockNumber,
    );
    if (!round?.success || !decimals?.success || round.returnData === '0x' || decimals.returnData === '0x') return null;
    const [roundId, answer, , updatedAt, answeredInRound] = decodeFunctionResult({
      abi: aggregatorAbi,
      functionName: 'latestRoundData',
      data: round.returnData,
    });
    const places = decodeFunctionResult({ abi: aggregatorAbi, functionName: 'decimals', data: decimals.returnData });
    if (answer <= 0n || updatedAt === 0n || answeredInRound < roundId) return null;
    const blockTime =
      timestamp?.success && timestamp.returnData !== '0x'
        ? decodeFunctionResult({ abi: multicall3Abi, functionName: 'getCurrentBlockTimestamp', data: timestamp.returnData })
        : BigInt(Math.floor(now() / 1000));
    if (blockTime - updatedAt > maxAgeS) return null;
    return formatUnits(answer, places);
  }

  return {
    async usdPrice(network, contract, query) {
      const { chain, network: name } = network.config;
      const aggregator = feeds.get(priceKey(chain, name, contract)) ?? feeds.get(priceKey(chain, undefined, contract));
      if (!aggregator) return null;
      const key = `${chain}/${name}/${aggregator}`;
      const block = query?.blockNumber === undefined ? 'latest' : query.blockNumber.toString();
      const cached = recent.get(key);
      if (cached && cached.block === block && (block !== 'latest' || now() < cached.until)) return cached.price;
      const blockNumber = query?.blockNumber ?? (await options.clientFor(network).getBlockNumber({ cacheTime: 0 }));
      const price = read(network, aggregator as Address, blockNumber).catch((error: unknown) => {
        options.onError?.(error, { network: `${chain}/${name}`, aggregator });
        recent.delete(key);
        return null;
      });
      recent.set(key, { block, until: now() + latestReuseMs, price });
      return price;
    },
  };
}
