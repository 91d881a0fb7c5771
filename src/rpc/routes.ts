import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { assertNetworkAccess, assertScope } from '../auth/principal.ts';
import type { ChainRegistry, Network } from '../chains/registry.ts';
import { chargeRequest } from '../http/charge.ts';
import { errorResponses } from '../http/schemas.ts';
import type { RateLimiter } from '../limits/limiter.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { RpcCache } from './cache/rpc-cache.ts';
import { maxBatchSize, parseRpcBody } from './jsonrpc.ts';
import { forwardRpcRequest, planRpcRequest, type RpcPlan } from './proxy.ts';
import { JsonRpcRequest, JsonRpcResponse, RpcPathParams } from './schemas.ts';

export interface RpcRouteDeps {
  chains: ChainRegistry;
  limiter: RateLimiter;
  metrics: Metrics;
  rpcCache?: RpcCache;
}

/** Largest JSON-RPC body accepted: room for a 100-call batch of large raw transactions. */
const rpcBodyLimit = 5 * 1024 * 1024;

/** `POST /v1/rpc/{chain}/{network}`: the JSON-RPC proxy. Must be registered inside the /v1 guard's scope. */
export async function rpcRoutes(app: FastifyInstance, deps: RpcRouteDeps) {
  // The body is parsed here, not by Fastify: whatever the Content-Type (curl -d sends a form type), and
  // so that a single call can be forwarded byte for byte.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: rpcBodyLimit }, (_request, body, done) => done(null, body));

  app.post(
    '/v1/rpc/:chain/:network',
    {
      schema: {
        summary: 'JSON-RPC proxy',
        description: `Forwards JSON-RPC 2.0 calls, single or batched (1-${maxBatchSize} calls), to the network's upstream. Results and chain errors are returned unchanged. Scope rpc:read; eth_sendRawTransaction needs rpc:write.`,
        tags: ['rpc'],
        params: RpcPathParams,
        body: Type.Union([JsonRpcRequest, Type.Array(JsonRpcRequest, { minItems: 1, maxItems: maxBatchSize })]),
        response: {
          200: Type.Union([JsonRpcResponse, Type.Array(JsonRpcResponse)]),
          204: Type.Null({ description: 'Only notifications (calls without id) were sent: no answer' }),
          ...errorResponses(400, 401, 403, 404, 413, 429),
        },
      },
      // Params are looked up (404), and the body is checked call by call in the handler.
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      const principal = request.principal!;
      const { chain, network: networkName } = request.params as { chain: string; network: string };
      const rawBody = typeof request.body === 'string' ? request.body : '';
      let network: Network;
      let plan: RpcPlan;
      try {
        network = deps.chains.get(chain, networkName);
        assertNetworkAccess(principal, network.config);
        if (!principal.scopes.has('rpc:read') && !principal.scopes.has('rpc:write')) assertScope(principal, 'rpc:read');
        plan = planRpcRequest(principal, network, parseRpcBody(rawBody));
      } catch (error) {
        // A refused request still counts as a request (and answers with the limit headers).
        await chargeRequest(deps, reply, principal, 0);
        throw error;
      }
      await chargeRequest(deps, reply, principal, plan.computeUnits);
      const answer = await forwardRpcRequest(deps, network, plan, rawBody);
      if (answer === '') return reply.code(204).send();
      return reply.type('application/json').send(answer);
    },
  );
}
