import { type ReadNeed, readNeedOf } from '../chains/read-need.ts';
import type { Network } from '../chains/registry.ts';
import { AppError } from '../core/errors.ts';
import { estimateFees, type FeeHistory, feeHistoryBlocks, type GasPriceEstimates, rewardPercentiles } from './fee-estimates.ts';

export interface GasPrices extends GasPriceEstimates {
  chain: string;
  updated_at: string;
}

/** Sends one JSON-RPC call body, which reads what `need` says, to a network's upstream and returns the answer text. */
export type SendToNetwork = (network: Network, body: string, need: ReadNeed) => Promise<string>;

export interface GasPriceService {
  prices(network: Network): Promise<GasPrices>;
}

/** Gas prices from `eth_feeHistory`, computed once per block per network. */
export function createGasPriceService(deps: { send: SendToNetwork; now?: () => Date }): GasPriceService {
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
    const history = await call<FeeHistory>(network, 'eth_feeHistory', [
      `0x${feeHistoryBlocks.toString(16)}`,
      'latest',
      rewardPercentiles,
    ]);
    return { chain: network.config.chain, ...estimateFees(history, network.config.blockTimeS), updated_at: now().toISOString() };
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
