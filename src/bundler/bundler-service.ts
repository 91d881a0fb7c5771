import type { Kysely } from 'kysely';
import { toHex } from 'viem';
import { publicClientsByNetwork } from '../chains/public-client.ts';
import type { Network } from '../chains/registry.ts';
import type { Tables } from '../db/tables.ts';
import { l1FeeOraclesByNetwork } from '../gas/l1-fee/l1-fee-oracle.ts';
import type { BundleLoop } from './bundle-loop.ts';
import type { BundlerContext } from './bundler-context.ts';
import { userOperationHashOnChain } from './eip7702-chain.ts';
import { entryPointsOf, parseUserOperationCall } from './entry-points.ts';
import { quoteUserOperationGasPrice } from './gas-price-quote.ts';
import { debugBundlerMethod } from './methods/debug-bundler.ts';
import { estimateUserOperationGas } from './methods/estimate-user-operation-gas.ts';
import { getUserOperationByHash } from './methods/get-user-operation-by-hash.ts';
import { getUserOperationReceipt } from './methods/get-user-operation-receipt.ts';
import { getUserOperationStatus } from './methods/get-user-operation-status.ts';
import { sendUserOperation } from './methods/send-user-operation.ts';
import { createRecentBaseFee } from './recent-base-fee.ts';
import { createReputationStore } from './reputation-store.ts';
import { BundlerRpcError, bundlerErrorCodes } from './rpc-errors.ts';
import { createSendNow } from './send-now.ts';
import { createSenderTurns } from './sender-turns.ts';

export interface BundlerDeps {
  db: Kysely<Tables>;
  /** The bundle loop of a network in this process (the debug methods drive it). */
  loopOf: (network: string) => BundleLoop | undefined;
  /** An op was queued on this network: bundle soon. */
  queued: (network: string) => void;
}

/** The bundler's JSON-RPC methods (ERC-7769 and Alto's pimlico_* extensions), each in src/bundler/methods. */
export function createBundlerService(deps: BundlerDeps) {
  const clientOf = publicClientsByNetwork();
  const ctx: BundlerContext = {
    db: deps.db,
    clientOf,
    l1FeeOf: l1FeeOraclesByNetwork(clientOf),
    reputation: createReputationStore(deps.db),
    recentBaseFee: createRecentBaseFee(),
    turns: createSenderTurns(),
    untraceable: new Set<Network>(),
    loopOf: deps.loopOf,
    queued: deps.queued,
  };
  const sendNow = createSendNow({
    db: deps.db,
    loopOf: deps.loopOf,
    async identify(network, params) {
      const { entryPoint, op } = parseUserOperationCall(network, params);
      const client = ctx.clientOf(network);
      const hash = await userOperationHashOnChain(client, op, entryPoint.version, entryPoint.address, network.config.chainId);
      return { hash: hash.toLowerCase(), sender: op.sender, nonce: op.nonce };
    },
    send: (network, params) => sendUserOperation(ctx, network, params),
    receipt: (network, hash) => getUserOperationReceipt(ctx, network, hash),
    status: (network, hash) => getUserOperationStatus(ctx, network, [hash]),
  });
  const methods: Record<string, (network: Network, params: unknown[]) => Promise<unknown> | unknown> = {
    eth_chainId: (network) => toHex(network.config.chainId),
    eth_supportedEntryPoints: (network) => entryPointsOf(network).map((entry) => entry.address),
    eth_estimateUserOperationGas: (network, params) => estimateUserOperationGas(ctx, network, params),
    eth_sendUserOperation: (network, params) => sendUserOperation(ctx, network, params),
    pimlico_sendUserOperationNow: sendNow,
    eth_getUserOperationByHash: (network, params) => getUserOperationByHash(ctx, network, params),
    eth_getUserOperationReceipt: (network, params) => getUserOperationReceipt(ctx, network, params[0]),
    pimlico_getUserOperationStatus: (network, params) => getUserOperationStatus(ctx, network, params),
    pimlico_getUserOperationGasPrice: (network) =>
      quoteUserOperationGasPrice(ctx.clientOf(network), network.config.minPriorityFeeWei),
  };

  return {
    async call(network: Network, method: string, params: unknown[]): Promise<unknown> {
      const answer = Object.hasOwn(methods, method) ? methods[method] : undefined;
      if (answer) return answer(network, params);
      if (method.startsWith('debug_bundler_')) return debugBundlerMethod(ctx, network, method, params);
      throw new BundlerRpcError(bundlerErrorCodes.methodNotFound, `the bundler has no method '${method}'`);
    },
  };
}

export type BundlerService = ReturnType<typeof createBundlerService>;
