import { type PublicClient, toHex } from 'viem';
import { baseFeeAfterFullBlocks, readPendingBlockFees } from './bundle-fees.ts';

/**
 * pimlico_getUserOperationGasPrice's tiers. maxFeePerGas covers the next block's base fee after this
 * many full blocks more (each +12.5%), so an op priced now is still accepted at send, and still
 * bundled, that many blocks later (slow 1.6x, standard 2x, fast 2.6x the next base fee); the tip
 * is the network's raised by a margin, which leaves room for the +10% bumps of a stuck bundle's
 * replacements (the bundle itself bids the network's tip, see bundle-fees.ts).
 */
const tiers = {
  slow: { blocks: 4, tipPercent: 120n },
  standard: { blocks: 6, tipPercent: 150n },
  fast: { blocks: 8, tipPercent: 200n },
} as const;

export type GasPriceQuote = Record<keyof typeof tiers, { maxFeePerGas: `0x${string}`; maxPriorityFeePerGas: `0x${string}` }>;

/**
 * The quote from the pending block's base fee (the one eth_sendUserOperation checks against) and the
 * node's tip, never under the chain's minimum tip (`minTip`, Polygon's).
 */
export async function quoteUserOperationGasPrice(client: PublicClient, minTip = 0n): Promise<GasPriceQuote> {
  const pending = await readPendingBlockFees(client, minTip);
  const tier = ({ blocks, tipPercent }: { blocks: number; tipPercent: bigint }) => {
    const tip = (pending.networkTip * tipPercent) / 100n;
    return {
      maxFeePerGas: toHex(baseFeeAfterFullBlocks(pending.nextBaseFee, blocks) + tip),
      maxPriorityFeePerGas: toHex(tip),
    };
  };
  return { slow: tier(tiers.slow), standard: tier(tiers.standard), fast: tier(tiers.fast) };
}
