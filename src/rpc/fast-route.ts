import type { FastRoute } from '../http/fast-route.ts';
import { authenticateV1, type V1GuardDeps } from '../http/v1-guard.ts';
import { answerRpc, type RpcRouteDeps, rpcBodyLimit } from './answer-rpc.ts';

/**
 * The plain form of `/v1/rpc/{chain}/{network}` (optional trailing slash and query): names without
 * percent-encoding, within the router's 100-character parameter limit. Any other form goes to the
 * Fastify route, which decodes it.
 */
const plainRpcPath = /^\/v1\/rpc\/([A-Za-z0-9_-]{1,100})\/([A-Za-z0-9_-]{1,100})\/?(?:\?|$)/;

/**
 * Content types Fastify's catch-all parser takes (`type/subtype`, any parameters). Requests without
 * one, or with one Fastify would refuse (415), go to the Fastify route.
 */
const parsableContentType = /^[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+\s*(?:;|$)/;

/**
 * `POST /v1/rpc/{chain}/{network}` before Fastify: the /v1 guard's authentication, then the route's
 * own logic (`answerRpc`), in the order the Fastify route runs them (401 before the body is read).
 */
export function rpcFastRoute(deps: RpcRouteDeps & V1GuardDeps): FastRoute {
  return {
    method: 'POST',
    url: '/v1/rpc/:chain/:network',
    match(url, req) {
      const contentType = req.headers['content-type'];
      if (contentType === undefined || !parsableContentType.test(contentType)) return undefined;
      const found = plainRpcPath.exec(url);
      return found ? [found[1]!, found[2]!] : undefined;
    },
    async handle(exchange) {
      const principal = await authenticateV1(deps, exchange.req.headers, exchange.ip, exchange);
      const body = await exchange.readBody(rpcBodyLimit);
      return answerRpc(deps, exchange, principal, exchange.params[0]!, exchange.params[1]!, body);
    },
  };
}
