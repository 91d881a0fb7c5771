import { formatGwei } from 'viem';

/** What `eth_feeHistory(blocks, 'latest', percentiles)` answers, numbers as hex strings. */
export interface FeeHistory {
  oldestBlock: string;
  baseFeePerGas: string[];
  reward?: string[][];
}

export const rewardPercentiles = [10, 50, 90] as const;
export const feeHistoryBlocks = 20;

export interface FeeEstimate {
  max_fee_gwei: string;
  max_priority_fee_gwei: string;
  estimated_seconds: number;
}

export interface GasPriceEstimates {
  block_number: number;
  base_fee_gwei: string;
  estimates: { slow: FeeEstimate; standard: FeeEstimate; fast: FeeEstimate };
}

/**
 * Each tier's tip is the median, over the recent blocks, of that block's 10th / 50th / 90th percentile
 * tip. Its max fee covers base fee rises while it waits: the next block's base fee times 1 (slow),
 * 1.25 (standard) or 2 (fast; the fee can double in about 6 full blocks), plus the tip. Expected
 * inclusion: about 5 blocks, 2 blocks, the next block.
 */
const tiers = {
  slow: { percentileIndex: 0, baseFeeTimes100: 100n, blocks: 5 },
  standard: { percentileIndex: 1, baseFeeTimes100: 125n, blocks: 2 },
  fast: { percentileIndex: 2, baseFeeTimes100: 200n, blocks: 1 },
} as const;

/** `minPriorityFeeWei`: the chain's floor for tips (Polygon PoS nodes refuse less), under which no tier goes. */
export function estimateFees(history: FeeHistory, blockTimeS: number, minPriorityFeeWei = 0n): GasPriceEstimates {
  const baseFees = history.baseFeePerGas.map((value) => BigInt(value));
  // The last base fee is the one of the block after the newest: what a transaction sent now pays.
  const nextBaseFee = baseFees.at(-1) ?? 0n;
  const newestBlock = Number(BigInt(history.oldestBlock)) + Math.max(0, baseFees.length - 2);
  const estimate = (tier: (typeof tiers)[keyof typeof tiers]): FeeEstimate => {
    const tips = (history.reward ?? []).map((row) => BigInt(row[tier.percentileIndex] ?? '0x0'));
    const medianTip = median(tips);
    const tip = medianTip > minPriorityFeeWei ? medianTip : minPriorityFeeWei;
    return {
      max_fee_gwei: formatGwei((nextBaseFee * tier.baseFeeTimes100) / 100n + tip),
      max_priority_fee_gwei: formatGwei(tip),
      estimated_seconds: Math.max(1, Math.round(tier.blocks * blockTimeS)),
    };
  };
  return {
    block_number: newestBlock,
    base_fee_gwei: formatGwei(nextBaseFee),
    estimates: { slow: estimate(tiers.slow), standard: estimate(tiers.standard), fast: estimate(tiers.fast) },
  };
}

function median(values: bigint[]): bigint {
  if (values.length === 0) return 0n;
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}
