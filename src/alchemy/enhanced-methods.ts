import type { Logger } from 'pino';
import { publicClientsByNetwork } from '../chains/public-client.ts';
import type { Network } from '../chains/registry.ts';
import { upstreamFailureObject } from '../chains/upstream-refusal.ts';
import { isAppError } from '../core/errors.ts';
import type { Database } from '../db/connect.ts';
import { type JsonRpcCall, type JsonRpcErrorObject, jsonRpcErrorCodes, rpcErrorText } from '../jsonrpc/messages.ts';
import type { TokenService } from '../tokens/service.ts';
import { createTokenFactsLookup } from '../tokens/token-facts.ts';
import { type ChainCaller, ChainRpcError } from './chain-caller.ts';
import { getAssetTransfers } from './get-asset-transfers.ts';
import { getTokenAllowance } from './get-token-allowance.ts';
import { getTokenBalances } from './get-token-balances.ts';
import { getTokenMetadata } from './get-token-metadata.ts';
import { getTransactionReceipts } from './get-transaction-receipts.ts';
import type { EnhancedMethodName } from './method-names.ts';
import { createNftSymbolLookup } from './nft-symbols.ts';
import { simulateAssetChanges, simulateAssetChangesBundle } from './simulate-asset-changes.ts';
import { simulateExecution, simulateExecutionBundle } from './simulate-execution.ts';
import { simulateUserOperationAssetChanges } from './simulate-user-operation.ts';
import type { SimulationMemory } from './simulation-run.ts';

export interface EnhancedMethods {
  /**
   * The JSON-RPC answer (text) to one enhanced call that passed the proxy's policy; `chain` sends the
   * chain calls it needs. Never throws: every failure is that call's JSON-RPC error.
   */
  answer(network: Network, call: JsonRpcCall & { method: EnhancedMethodName }, chain: ChainCaller): Promise<string>;
}

export interface EnhancedMethodsDeps {
  readonly db: Database;
  readonly tokens: TokenService;
  readonly logger: Logger;
}

type Handler = (network: Network, params: unknown, chain: ChainCaller) => Promise<unknown>;

/** Alchemy's enhanced methods (src/alchemy/method-names.ts), answered from the index and the token service. */
export function createEnhancedMethods(deps: EnhancedMethodsDeps): EnhancedMethods {
  const logger = deps.logger.child({ component: 'alchemy-methods' });
  const tokenFacts = createTokenFactsLookup(deps.tokens);
  const clientFor = publicClientsByNetwork();
  const nftSymbols = createNftSymbolLookup(clientFor);
  const simulation = { tokenFacts, nftSymbols, clientFor, memory: new Map() as SimulationMemory };
  const handlers: Record<EnhancedMethodName, Handler> = {
    alchemy_getAssetTransfers: (network, params) => getAssetTransfers({ db: deps.db, tokenFacts, nftSymbols }, network, params),
    alchemy_getTokenBalances: (network, params) => getTokenBalances({ db: deps.db, clientFor }, network, params),
    alchemy_getTokenMetadata: (network, params) => getTokenMetadata(deps.tokens, network, params),
    alchemy_getTokenAllowance: (_network, params, chain) => getTokenAllowance(chain, params),
    alchemy_getTransactionReceipts: (_network, params, chain) => getTransactionReceipts(chain, params),
    alchemy_simulateAssetChanges: (network, params, chain) => simulateAssetChanges(simulation, network, params, chain),
    alchemy_simulateAssetChangesBundle: (network, params, chain) =>
      simulateAssetChangesBundle(simulation, network, params, chain),
    alchemy_simulateExecution: (_network, params, chain) => simulateExecution(params, chain),
    alchemy_simulateExecutionBundle: (_network, params, chain) => simulateExecutionBundle(params, chain),
    alchemy_simulateUserOperationAssetChanges: (network, params, chain) =>
      simulateUserOperationAssetChanges(simulation, network, params, chain),
  };

  return {
    async answer(network, call, chain) {
      const id = call.id ?? null;
      try {
        const result = await handlers[call.method](network, call.params, chain);
        return JSON.stringify({ jsonrpc: '2.0', id, result });
      } catch (error) {
        return rpcErrorText(id, errorObjectOf(error, network, call.method, logger));
      }
    },
  };
}

/**
 * A failure as the call's JSON-RPC error: bad params -32602 with the message naming the parameter, the
 * node's own error unchanged, an unavailable index or upstream -32603 (retryable); anything else is
 * logged and answered -32603 without its detail.
 */
function errorObjectOf(error: unknown, network: Network, method: string, logger: Logger): JsonRpcErrorObject {
  if (error instanceof ChainRpcError) return error.error;
  const upstreamFailure = upstreamFailureObject(error, network, method);
  if (upstreamFailure) return upstreamFailure;
  if (isAppError(error)) {
    if (error.code === 'invalid_request' || error.code === 'not_found') {
      return { code: jsonRpcErrorCodes.invalid_params, message: error.message };
    }
    if (error.code === 'service_unavailable') return { code: jsonRpcErrorCodes.internal_error, message: error.message };
  }
  logger.error({ err: error, method }, 'enhanced method failed');
  return {
    code: jsonRpcErrorCodes.internal_error,
    message: `internal error answering ${method}; retry with exponential backoff`,
  };
}
