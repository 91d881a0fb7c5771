import { type ReadNeed, readNeedOf } from '../chains/read-need.ts';
import type { Network } from '../chains/registry.ts';
import { AppError } from '../core/errors.ts';
import { estimateFees, type FeeHistory, feeHistoryBlocks, type GasPriceEstimates, rewardPercentiles } from './fee-estimates.ts';
import { erc20TransferQuery, l1FeeWeiOf } from './l1-fee/l1-cost.ts';
import type { L1FeeOracle } from './l1-fee/l1-fee-oracle.ts';

export interface GasPrices extends GasPriceEstimates {
  chain: string;
  updated_at: string;
  /** Rollups only (OP-stack, Arbitrum): the L1 part of an ERC-20 transfer's cost, decimal wei. */
  l1_data_fee?: { estimated_wei_per_transfer: string; updated_at: string };
}

/** Sends one JSON-RPC call body, which reads what `need` says, to a network's upstream and returns the answer text. */
export type SendToNetwork = (network: Network, body: string, need: ReadNeed) => Promise<string>;

export interface GasPriceService {
  prices(network: Network): Promise<GasPrices>;
}

/**
 * Gas prices from `eth_feeHistory`, computed once per block per network; on a rollup with the L1 fee
 * of an ERC-20 transfer from the chain's own oracle (`l1FeeOf`).
 */
export function createGasPriceService(deps: {
  send: SendToNetwork;
  l1FeeOf?: (network: Network) => L1FeeOracle;
  now?: () => Date;
}): GasPriceService {
  const now = deps.now ?? (() => new Date());
  const latest = new Map<Network, { blockNumber: string; prices: Promise<GasPrices> }>();

  async function call<T>(network: Network, method: string, params: unknown[]): Promise<T> {
    let text: string;
    try {
      text = await deps.send(network, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), readNeedOf(method, params));
    } catch (error) {
      throw new AppError('service_unavailable', "the chain's upstream is unavailable; retry with exponential backoff", {
        cause: error,
      });
    }
    const answer = JSON.parse(text) as { result?: T; error?: { message: string } };
    if (answer.error || answer.result === undefined) {
      throw new AppError('service_unavailable', `the chain's upstream refused ${method}; retry with exponential backoff`);
    }
    return answer.result;
  }

  async function compute(network: Network): Promise<GasPrices> {
    const { chain, blockTimeS, minPriorityFeeWei } = network.config;
    const [history, l1DataFee] = await Promise.all([
      call<FeeHistory>(network, 'eth_feeHistory', [`0x${feeHistoryBlocks.toString(16)}`, 'latest', rewardPercentiles]),
      transferL1Fee(network),
    ]);
    const updatedAt = now().toISOString();
    return {
      chain,
      ...estimateFees(history, blockTimeS, minPriorityFeeWei),
      updated_at: updatedAt,
      ...(l1DataFee === undefined
        ? {}
        : { l1_data_fee: { estimated_wei_per_transfer: l1DataFee.toString(), updated_at: updatedAt } }),
    };
  }

  /** An ERC-20 transfer's L1 fee in wei on a rollup; undefined elsewhere. */
  async function transferL1Fee(network: Network): Promise<bigint | undefined> {
    const oracle = deps.l1FeeOf?.(network);
    if (!oracle?.charged) return undefined;
    return l1FeeWeiOf(await oracle.costOf(erc20TransferQuery(network.config.chainId)));
  }

  return {
    async prices(network) {
      const blockNumber = await call<string>(network, 'eth_blockNumber', []);
      const cached = latest.get(network);
      if (cached?.blockNumber === blockNumber) return cached.prices;
      const prices = compute(network);
      latest.set(network, { blockNumber, prices });
      prices.catch(() => latest.delete(network));
      return prices;
    },
  };
}
