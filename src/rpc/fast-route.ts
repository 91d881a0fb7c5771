import { hasEncodedBody } from '../http/encoded-body.ts';
import type { FastRoute } from '../http/fast-route.ts';
import { authenticateV1, type V1GuardDeps } from '../http/v1-guard.ts';
import { answerRpc, type RpcRouteDeps, rpcBodyLimit } from './answer-rpc.ts';

/**
 * The plain form of `/v1/rpc/{chain}/{network}` (optional trailing slash and query): names without
 * percent-encoding, within the router's 100-character parameter limit. Any other form goes to the
 * Fastify route, which decodes it.
 */
const plainRpcPath = /^\/v1\/rpc\/([A-Za-z0-9_-]{1,100})\/([A-Za-z0-9_-]{1,100})\/?(?:\?|$)/;
/** The same with the key in the path (`/v1/rpc/{chain}/{network}/{apiKey}`); any key-like text, the authenticator judges it. */
const plainRpcKeyPath = /^\/v1\/rpc\/([A-Za-z0-9_-]{1,100})\/([A-Za-z0-9_-]{1,100})\/([A-Za-z0-9_-]{1,100})\/?(?:\?|$)/;

/**
 * Content types Fastify's catch-all parser takes (`type/subtype`, any parameters). Requests without
 * one, or with one Fastify would refuse (415), go to the Fastify route.
 */
const parsableContentType = /^[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+\s*(?:;|$)/;

/**
 * `POST /v1/rpc/{chain}/{network}` and its URL form `POST /v1/rpc/{chain}/{network}/{apiKey}` before
 * Fastify: the /v1 guard's authentication, then the route's own logic (`answerRpc`), in the order the
 * Fastify routes run them (401 before the body is read).
 */
export function rpcFastRoutes(deps: RpcRouteDeps & V1GuardDeps): FastRoute[] {
  return [
    rpcFastRoute(deps, '/v1/rpc/:chain/:network', plainRpcPath),
    rpcFastRoute(deps, '/v1/rpc/:chain/:network/:apiKey', plainRpcKeyPath),
  ];
}

function rpcFastRoute(deps: RpcRouteDeps & V1GuardDeps, url: string, plainPath: RegExp): FastRoute {
  return {
    method: 'POST',
    url,
    match(url, req) {
      const contentType = req.headers['content-type'];
      if (contentType === undefined || !parsableContentType.test(contentType)) return undefined;
      // A compressed body is Fastify's to refuse (src/http/encoded-body.ts).
      if (hasEncodedBody(req.headers)) return undefined;
      const found = plainPath.exec(url);
      return found ? found.slice(1) : undefined;
    },
    async handle(exchange) {
      const [chain, network, pathKey] = exchange.params as [string, string, string | undefined];
      const principal = await authenticateV1(deps, exchange.req.headers, exchange.ip, exchange, pathKey);
      const body = await exchange.readBody(rpcBodyLimit);
      return answerRpc(deps, exchange, principal, chain, network, body);
    },
  };
}
