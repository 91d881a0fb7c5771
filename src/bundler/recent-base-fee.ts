import type { PublicClient } from 'viem';

/**
 * How long a head's base fee answers a send's "can this op pay the base fee at all" check. It moves at
 * most 12.5% a block, and the check only turns away ops that could not be included: reading the head
 * once per interval instead of once per op takes a node call off every send under load.
 */
const maxAgeMs = 500;

/**
 * The base fee of the next block (the earliest an op sent now can land in; null before London), read
 * at most once per `maxAgeMs` per client; concurrent reads share one call. It is eth_feeHistory's
 * last entry, the same figure pimlico_getUserOperationGasPrice quotes from (gas-price-quote.ts), so a
 * quote is judged at send against the base fee it was computed from, or a later one.
 */
export function createRecentBaseFee(now: () => number = performance.now.bind(performance)) {
  const recent = new WeakMap<PublicClient, { at: number; baseFee: Promise<bigint | null> }>();
  return (client: PublicClient): Promise<bigint | null> => {
    const cached = recent.get(client);
    if (cached && now() - cached.at < maxAgeMs) return cached.baseFee;
    const baseFee = client
      .getFeeHistory({ blockCount: 1, blockTag: 'latest', rewardPercentiles: [] })
      .then((history) => history.baseFeePerGas.at(-1) ?? null);
    const entry = { at: now(), baseFee };
    recent.set(client, entry);
    // A failed read is not kept: the next send asks again.
    baseFee.catch(() => {
      if (recent.get(client) === entry) recent.delete(client);
    });
    return baseFee;
  };
}
