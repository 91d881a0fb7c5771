import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../http/schemas.ts';
import { maxBatchSize } from '../jsonrpc/messages.ts';
import { answerRpc, type RpcRouteDeps, rpcBodyLimit } from './answer-rpc.ts';
import { JsonRpcRequest, JsonRpcResponse, RpcPathParams } from './schemas.ts';

export type { RpcRouteDeps } from './answer-rpc.ts';

/**
 * `POST /v1/rpc/{chain}/{network}` (and `/{apiKey}` after it: src/http/key-in-path-routes.ts): the
 * JSON-RPC proxy. Must be registered inside the /v1 guard's scope.
 * Requests in the usual form are answered before Fastify by the fast path (src/rpc/fast-route.ts) with
 * the same logic; this route documents the endpoint and answers the other forms (e.g. encoded paths).
 */
export async function rpcRoutes(app: FastifyInstance, deps: RpcRouteDeps) {
  // The body is parsed here, not by Fastify: whatever the Content-Type (curl -d sends a form type), and
  // so that each call's shape is checked before it is rebuilt and forwarded (src/rpc/parse-call.ts).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: rpcBodyLimit }, (_request, body, done) => done(null, body));

  app.post(
    '/v1/rpc/:chain/:network',
    {
      schema: {
        summary: 'JSON-RPC proxy',
        description: `Forwards JSON-RPC 2.0 calls, single or batched (1-${maxBatchSize} calls), to the network's upstream. Results and chain errors are returned unchanged. Methods: an allowlist (eth_*, net_*, web3_*, priced debug_/trace_ reads; node control only on dev_methods networks, with rpc:write), see docs/compute-units.md. Scope rpc:read; eth_sendRawTransaction needs rpc:write. Alchemy's alchemy_getAssetTransfers, alchemy_getTokenBalances, alchemy_getTokenMetadata and alchemy_getTransactionReceipts are answered by Blockyard itself (scope data:read, docs/alchemy-methods.md), and Alchemy's Transaction Simulation (alchemy_simulateAssetChanges, alchemy_simulateExecution, their Bundle forms, alchemy_simulateUserOperationAssetChanges) on the node's eth_simulateV1 or debug_traceCall (scope rpc:read). A request costing more than the plan's CU per second is 400. A key's methods and contracts restrictions refuse a single call with 403 and a call of a batch with -32010 (docs/keys-calls.md).`,
        tags: ['rpc'],
        params: RpcPathParams,
        body: Type.Union([JsonRpcRequest, Type.Array(JsonRpcRequest, { minItems: 1, maxItems: maxBatchSize })]),
        response: {
          200: Type.Union([JsonRpcResponse, Type.Array(JsonRpcResponse)]),
          204: Type.Null({ description: 'Only notifications (calls without id) were sent: no answer' }),
          ...errorResponses(400, 401, 403, 404, 413, 429),
        },
      },
      // Also at /v1/rpc/{chain}/{network}/{apiKey}, for wallets and tools that take only a URL.
      config: { keyInPath: true },
      // The parser's limit, stated on the route too so that a 413 names it.
      bodyLimit: rpcBodyLimit,
      // Params are looked up (404), and the body is checked call by call in the handler.
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      const { chain, network } = request.params as { chain: string; network: string };
      const rawBody = typeof request.body === 'string' ? request.body : '';
      const answer = await answerRpc(deps, reply, request.principal!, chain, network, rawBody);
      if (answer === '') return reply.code(204).send();
      return reply.type('application/json').send(answer);
    },
  );
}
