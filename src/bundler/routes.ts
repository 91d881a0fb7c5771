import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { EnhancedMethods } from '../alchemy/enhanced-methods.ts';
import { isDataMethod } from '../alchemy/method-names.ts';
import { assertNetworkAccess, type Principal } from '../auth/principal.ts';
import type { ChainRegistry, Network } from '../chains/registry.ts';
import { upstreamFailureObject } from '../chains/upstream-refusal.ts';
import { isAppError, notFound } from '../core/errors.ts';
import { listBodyLimit } from '../http/body-limits.ts';
import { chargeRequest } from '../http/charge.ts';
import { errorHandler } from '../http/error-handler.ts';
import { readJsonWhateverTheType } from '../http/json-body.ts';
import { releaseOnClose } from '../http/release-on-close.ts';
import { errorResponses } from '../http/schemas.ts';
import type { DataQuerySlots } from '../limits/data-query-slots.ts';
import type { RateLimiter } from '../limits/limiter.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { RpcCache } from '../rpc/cache/rpc-cache.ts';
import { oneAtATime, takeDataSlot } from '../rpc/data-calls.ts';
import { type BundlerCallInput, type CheckedBundlerCall, checkBundlerCall, type EndpointCall } from './bundler-calls.ts';
import type { BundlerService } from './bundler-service.ts';
import { answerChainCall } from './chain-calls.ts';
import { BundlerRpcError, bundlerErrorCodes } from './rpc-errors.ts';

const maxBatch = 50;

/** ERC-7677's paymaster methods (`pm_*`) on this endpoint: src/sponsorship/erc7677.ts answers them. */
export interface PaymasterMethods {
  call(network: Network, method: string, params: unknown[], principal: Principal): Promise<unknown>;
}

export interface BundlerRouteDeps {
  chains: ChainRegistry;
  bundler: BundlerService;
  paymaster?: PaymasterMethods;
  limiter: RateLimiter;
  metrics: Metrics;
  /** The JSON-RPC proxy's cache, for the chain's methods answered here too; absent: every call goes upstream. */
  rpcCache?: RpcCache;
  /** Alchemy's enhanced methods, answered here as on /v1/rpc; absent: -32601. */
  enhanced?: EnhancedMethods;
  /** The per-account cap on data queries running at once (chain calls such as alchemy_getAssetTransfers); absent: no cap. */
  dataQueries?: DataQuerySlots;
}

/**
 * `POST /v1/bundler/{chain}/{network}`: the ERC-4337 bundler's JSON-RPC (ERC-7769), single calls or
 * batches, and the chain's own JSON-RPC beside it, answered by the proxy's code as on /v1/rpc
 * (src/bundler/chain-calls.ts): one URL is enough for a smart account client. Charged in the handler,
 * per call (src/bundler/bundler-calls.ts): a batch of 50 simulations costs 50 simulations. A request
 * refused before its calls are priced counts as one request of 0 CU.
 */
export async function bundlerRoutes(app: FastifyInstance, deps: BundlerRouteDeps) {
  // Register in a scope of its own: JSON whatever the Content-Type, as on /v1/rpc (curl -d sends a form type).
  readJsonWhateverTheType(app, listBodyLimit);
  const charge = async (request: FastifyRequest, reply: FastifyReply, principal: Principal, cu: number, what?: string) => {
    request.computeUnitsCharged = 0;
    await chargeRequest(deps, reply, principal, cu, what);
    request.computeUnitsCharged = cu;
  };

  app.post(
    '/v1/bundler/:chain/:network',
    {
      // Also at /v1/bundler/{chain}/{network}/{apiKey} (src/http/key-in-path-routes.ts).
      config: { keyInPath: true, jsonRpcBody: true },
      bodyLimit: listBodyLimit,
      schema: {
        summary: 'ERC-4337 bundler JSON-RPC: eth_sendUserOperation, eth_estimateUserOperationGas, receipts, …',
        description: 'See docs/bundler.md. A failure of one call is a JSON-RPC error with HTTP 200 (ERC-7769 codes).',
        tags: ['bundler'],
        params: Type.Object({ chain: Type.String({ maxLength: 63 }), network: Type.String({ maxLength: 63 }) }),
        body: Type.Unknown({ description: 'A JSON-RPC 2.0 request or a batch of them' }),
        response: {
          200: Type.Unknown(),
          204: Type.Null({ description: 'Only notifications (calls without id) were sent: no answer' }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
      // Whatever refuses the request before its handler charged it (a body that is not JSON, an unknown
      // network) still counts it as one request, with the limit headers on the answer.
      errorHandler: async (error, request, reply) => {
        let answer: Error = error;
        if (request.principal !== undefined && request.computeUnitsCharged === undefined) {
          try {
            await charge(request, reply, request.principal, 0);
          } catch (refused) {
            answer = refused as Error;
          }
        }
        return errorHandler(answer, request, reply);
      },
    },
    async (request, reply) => {
      const principal = request.principal!;
      const { chain, network: name } = request.params as { chain: string; network: string };
      const network = deps.chains.get(chain, name);
      assertNetworkAccess(principal, network.config);
      if (network.config.kind !== 'evm' || !network.config.bundler.enabled) {
        throw notFound(`${chain}/${name} has no bundler (set bundler: { enabled: true } in its chain settings)`);
      }
      const body = request.body as BundlerCallInput | BundlerCallInput[];
      const batch = Array.isArray(body);
      if (batch && (body.length === 0 || body.length > maxBatch)) {
        await charge(request, reply, principal, 0);
        return { jsonrpc: '2.0', id: null, error: { code: -32600, message: `a batch holds 1 to ${maxBatch} calls` } };
      }
      const calls = (batch ? body : [body]).map((call) => checkBundlerCall(call, principal, network, batch));
      const cost = calls.reduce((sum, call) => sum + (call.kind === 'chain' || call.ok ? call.computeUnits : 0), 0);
      const chainCalls = calls.flatMap((call) => (call.kind === 'chain' ? [call.checked] : []));
      let release: (() => void) | undefined;
      try {
        release = await takeDataSlot(deps.dataQueries, principal, chainCalls);
      } catch (error) {
        await charge(request, reply, principal, 0);
        throw error;
      }
      if (release) releaseOnClose(reply.raw, release);
      await charge(request, reply, principal, cost, batch ? 'batch' : 'method');

      const answer = async (call: CheckedBundlerCall) => {
        try {
          if (!call.ok) throw call.error;
          const result =
            call.method.startsWith('pm_') && deps.paymaster
              ? await deps.paymaster.call(network, call.method, call.params, principal)
              : await deps.bundler.call(network, call.method, call.params);
          return { jsonrpc: '2.0', id: call.id, result };
        } catch (error) {
          if (error instanceof BundlerRpcError) {
            return {
              jsonrpc: '2.0',
              id: call.id,
              error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) },
            };
          }
          const upstreamFailure = upstreamFailureObject(error, network, call.ok ? call.method : '');
          if (upstreamFailure) return { jsonrpc: '2.0', id: call.id, error: upstreamFailure };
          const message = isAppError(error) ? error.message : 'internal error; retry with exponential backoff';
          if (!isAppError(error))
            request.log.error({ err: error, method: call.ok ? call.method : undefined }, 'bundler call failed');
          return { jsonrpc: '2.0', id: call.id, error: { code: bundlerErrorCodes.internal, message } };
        }
      };
      // As JSON text: the chain's answers come as the upstream (or the cache) wrote them, as on /v1/rpc.
      const serial = oneAtATime();
      const answerText = async (call: EndpointCall): Promise<string> => {
        // A notification (no id) is run but not answered, as JSON-RPC 2.0 says (and as chain calls are).
        if (call.kind !== 'chain') {
          const text = JSON.stringify(await answer(call));
          return call.notification ? '' : text;
        }
        const chainAnswer = () => answerChainCall(deps, network, call);
        return call.checked.ok && isDataMethod(call.checked.call.method) ? serial(chainAnswer) : chainAnswer();
      };
      const answered = (await Promise.all(calls.map(answerText))).filter((text) => text !== '');
      if (answered.length === 0) return reply.code(204).send();
      return reply.type('application/json').send(batch ? `[${answered.join(',')}]` : answered[0]);
    },
  );
}
