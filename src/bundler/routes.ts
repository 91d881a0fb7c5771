import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { assertNetworkAccess } from '../auth/principal.ts';
import type { Scope } from '../auth/scopes.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { isAppError, notFound } from '../core/errors.ts';
import { listBodyLimit } from '../http/body-limits.ts';
import { errorResponses } from '../http/schemas.ts';
import { restComputeUnits } from '../limits/compute-units.ts';
import type { Erc7677Methods } from '../sponsorship/erc7677.ts';
import type { BundlerService } from './bundler-service.ts';
import { BundlerRpcError, bundlerErrorCodes } from './rpc-errors.ts';

const maxBatch = 50;

/** Which scopes may call a method: sending needs bundler:send; reading, bundler:send or rpc:read. */
function scopesFor(method: string): readonly Scope[] {
  if (method === 'eth_sendUserOperation') return ['bundler:send'];
  if (method.startsWith('pm_')) return ['gas:manage'];
  return ['bundler:send', 'rpc:read'];
}

interface Call {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/** `POST /v1/bundler/{chain}/{network}`: the ERC-4337 bundler's JSON-RPC (ERC-7769), single calls or batches. */
export async function bundlerRoutes(
  app: FastifyInstance,
  deps: { chains: ChainRegistry; bundler: BundlerService; paymaster?: Erc7677Methods },
) {
  app.post(
    '/v1/bundler/:chain/:network',
    {
      config: { computeUnits: restComputeUnits['bundler.rpc'] },
      bodyLimit: listBodyLimit,
      schema: {
        summary: 'ERC-4337 bundler JSON-RPC: eth_sendUserOperation, eth_estimateUserOperationGas, receipts, …',
        description: 'See docs/bundler.md. A failure of one call is a JSON-RPC error with HTTP 200 (ERC-7769 codes).',
        tags: ['bundler'],
        params: Type.Object({ chain: Type.String({ maxLength: 63 }), network: Type.String({ maxLength: 63 }) }),
        body: Type.Unknown({ description: 'A JSON-RPC 2.0 request or a batch of them' }),
        response: { 200: Type.Unknown(), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const { chain, network: name } = request.params as { chain: string; network: string };
      const network = deps.chains.get(chain, name);
      assertNetworkAccess(principal, network.config);
      if (network.config.kind !== 'evm' || !network.config.bundler.enabled) {
        throw notFound(`${chain}/${name} has no bundler (set bundler: { enabled: true } in its chain settings)`);
      }
      const answer = async (call: Call) => {
        const id = typeof call?.id === 'string' || typeof call?.id === 'number' ? call.id : null;
        try {
          if (typeof call !== 'object' || call === null || call.jsonrpc !== '2.0' || typeof call.method !== 'string') {
            throw new BundlerRpcError(-32600, 'not a JSON-RPC 2.0 request: it needs jsonrpc "2.0" and a method');
          }
          const allowed = scopesFor(call.method);
          if (!allowed.some((scope) => principal.scopes.has(scope))) {
            throw new BundlerRpcError(-32010, `this API key lacks the scope '${allowed.join("' or '")}' for ${call.method}`);
          }
          const params = call.params === undefined ? [] : call.params;
          if (!Array.isArray(params)) throw new BundlerRpcError(bundlerErrorCodes.invalidParams, 'params must be an array');
          const result =
            call.method.startsWith('pm_') && deps.paymaster
              ? await deps.paymaster.call(network, call.method, params, principal)
              : await deps.bundler.call(network, call.method, params);
          return { jsonrpc: '2.0', id, result };
        } catch (error) {
          if (error instanceof BundlerRpcError) {
            return {
              jsonrpc: '2.0',
              id,
              error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) },
            };
          }
          const message = isAppError(error) ? error.message : 'internal error; retry with exponential backoff';
          if (!isAppError(error)) request.log.error({ err: error, method: call?.method }, 'bundler call failed');
          return { jsonrpc: '2.0', id, error: { code: bundlerErrorCodes.internal, message } };
        }
      };
      const body = request.body as Call | Call[];
      if (Array.isArray(body)) {
        if (body.length === 0 || body.length > maxBatch) {
          return { jsonrpc: '2.0', id: null, error: { code: -32600, message: `a batch holds 1 to ${maxBatch} calls` } };
        }
        return Promise.all(body.map(answer));
      }
      return answer(body);
    },
  );
}
