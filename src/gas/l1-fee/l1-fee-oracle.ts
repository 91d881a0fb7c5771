import type { PublicClient } from 'viem';
import type { Network } from '../../chains/registry.ts';
import type { FeeModel } from '../../config/network-presets.ts';
import { AppError } from '../../core/errors.ts';
import { type L1Cost, type L1CostQuery, noL1Cost } from './l1-cost.ts';
import { gasPriceOracleAbi, gasPriceOracleAddress, nodeInterfaceAbi, nodeInterfaceAddress } from './l1-fee-contracts.ts';

/** The L1 part of transactions' costs on one network, asked of the chain's own contracts. */
export interface L1FeeOracle {
  readonly feeModel: FeeModel;
  /** Whether this network's transactions have an L1 part at all (OP-stack, Arbitrum). */
  readonly charged: boolean;
  costOf(query: L1CostQuery): Promise<L1Cost>;
}

/**
 * Answers kept per head: the L1 fee parameters change at most once a block (OP-stack's L1Block is
 * written by each block's first transaction; Nitro's L1 price estimate likewise), so a query asked
 * twice at one head (an op estimated, then sent) reads the chain once. Bounded: a busy head's
 * thousandth distinct query is read without being kept.
 */
const maxAnswersPerHead = 1_000;

/**
 * An oracle for a network's fee model: OP-stack asks GasPriceOracle.getL1Fee (Bedrock, Ecotone and
 * Fjord alike: the contract knows which formula its chain runs, so none is written here); Arbitrum asks
 * NodeInterface.gasEstimateL1Component; other models have no L1 part. `head`: the network's current
 * block number, the cache's key.
 */
export function createL1FeeOracle(deps: { client: PublicClient; feeModel: FeeModel; head: () => number }): L1FeeOracle {
  const { client, feeModel } = deps;
  const read = readerOf(client, feeModel);
  let cachedHead = -1;
  const answers = new Map<string, Promise<L1Cost>>();
  return {
    feeModel,
    charged: read !== undefined,
    costOf(query) {
      if (read === undefined) return Promise.resolve(noL1Cost);
      const head = deps.head();
      if (head !== cachedHead) {
        answers.clear();
        cachedHead = head;
      }
      const key = feeModel === 'op-stack' ? query.serialized : `${query.to}:${query.data}`;
      const kept = answers.get(key);
      if (kept) return kept;
      const answer = read(query);
      if (answers.size < maxAnswersPerHead) {
        answers.set(key, answer);
        answer.catch(() => answers.delete(key));
      }
      return answer;
    },
  };
}

function readerOf(client: PublicClient, feeModel: FeeModel): ((query: L1CostQuery) => Promise<L1Cost>) | undefined {
  if (feeModel === 'op-stack') {
    return async (query) => {
      const feeWei = await client
        .readContract({
          address: gasPriceOracleAddress,
          abi: gasPriceOracleAbi,
          functionName: 'getL1Fee',
          args: [query.serialized],
        })
        .catch((error: unknown) => {
          throw unreadable(`GasPriceOracle.getL1Fee at ${gasPriceOracleAddress}`, error);
        });
      return { model: 'op-stack', feeWei };
    };
  }
  if (feeModel === 'arbitrum') {
    return async (query) => {
      const { result } = await client
        .simulateContract({
          address: nodeInterfaceAddress,
          abi: nodeInterfaceAbi,
          functionName: 'gasEstimateL1Component',
          args: [query.to, false, query.data],
        })
        .catch((error: unknown) => {
          throw unreadable(`NodeInterface.gasEstimateL1Component at ${nodeInterfaceAddress}`, error);
        });
      const [l1Gas, baseFee, l1BaseFeeEstimate] = result;
      return { model: 'arbitrum', l1Gas, baseFee, l1BaseFeeEstimate };
    };
  }
  return undefined;
}

/** A fee model whose contract does not answer: the node is down, or the network is not what `fee_model` says. */
function unreadable(what: string, cause: unknown): AppError {
  return new AppError(
    'service_unavailable',
    `the L1 fee could not be read (${what}); if this network is not a rollup of that kind, fix its fee_model`,
    { cause },
  );
}

/** One oracle per network, made on first use, cached on the network's served tip. */
export function l1FeeOraclesByNetwork(clientOf: (network: Network) => PublicClient): (network: Network) => L1FeeOracle {
  const oracles = new Map<Network, L1FeeOracle>();
  return (network) => {
    let oracle = oracles.get(network);
    if (!oracle) {
      oracle = createL1FeeOracle({
        client: clientOf(network),
        feeModel: network.config.feeModel,
        head: () => network.pool.tip.value,
      });
      oracles.set(network, oracle);
    }
    return oracle;
  };
}
