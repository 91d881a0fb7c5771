import { readFileSync } from 'node:fs';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** The OpenAPI 3.1 document's header; the paths come from the route schemas. */
export const openApiInfo = {
  openapi: '3.1.0',
  info: {
    title: 'Blockyard API',
    version,
    description:
      'Self-hostable blockchain infrastructure API. Authenticate /v1 with `X-API-Key: <key>` or `Authorization: Bearer <key>` ' +
      '(the JSON-RPC, bundler and WebSocket endpoints also take the key in the path, `/v1/rpc/{chain}/{network}/{apiKey}`: see [docs/drop-in.md](/docs/drop-in.md)); ' +
      'a key whose restrictions ask for signed requests also needs `Authorization: Bearer <JWT>` besides it ([docs/keys-request.md](/docs/keys-request.md)); ' +
      'the admin API with `Authorization: Bearer <admin token>`. Errors: `{error: {code, message, status}}`, every code in [docs/errors.md](/docs/errors.md); every page of docs/ is served at `/docs/<page>.md`.',
  },
  components: {
    securitySchemes: {
      apiKey: { type: 'apiKey' as const, in: 'header' as const, name: 'X-API-Key' },
      bearerApiKey: { type: 'http' as const, scheme: 'bearer' },
      adminToken: { type: 'http' as const, scheme: 'bearer', description: 'The admin token' },
    },
  },
  security: [{ apiKey: [] }, { bearerApiKey: [] }] as Record<string, string[]>[],
  tags: [
    { name: 'rpc', description: 'JSON-RPC proxy' },
    { name: 'gas', description: 'Gas prices' },
    { name: 'tokens', description: 'ERC-20 balances and metadata, from the index' },
    { name: 'nfts', description: 'NFT metadata, collections and ownership' },
    { name: 'transfers', description: 'Native, internal, ERC-20 and NFT transfers of an address, from the index' },
    { name: 'usage', description: "The account's requests and compute units over time" },
    { name: 'admin', description: 'Accounts and API keys, index status (admin token)' },
    { name: 'operations', description: 'Health and metrics' },
  ],
};

/**
 * The swagger transform: an operation whose route declares a scope (`config.scope`, checked by the /v1
 * guard) publishes it as `x-scope`, so docs/scopes.md and the authorization matrix test read it; the
 * name a key's `methods` lists and the contracts rule (src/http/route-restrictions.ts) as
 * `x-method-name` and `x-contracts`, which the matrix crosses with restricted keys.
 */
export function publishRouteScope({ schema, url, route }: { schema: object; url: string; route: { config?: unknown } }) {
  const config = route.config as
    | { scope?: string; idempotent?: boolean; methodName?: string; contracts?: { published?: unknown } }
    | undefined;
  const published: Record<string, unknown> = { ...schema };
  if (config?.scope !== undefined) published['x-scope'] = config.scope;
  if (config?.methodName !== undefined) published['x-method-name'] = config.methodName;
  if (config?.contracts?.published !== undefined) published['x-contracts'] = config.contracts.published;
  if (config?.idempotent) published.headers = withIdempotencyKeyHeader(published.headers);
  return { schema: published, url };
}

/** The `Idempotency-Key` header, for the document only: the route's hook checks it (src/http/idempotency). */
function withIdempotencyKeyHeader(headers: unknown): object {
  const given = (headers ?? { type: 'object', properties: {} }) as { properties?: Record<string, unknown> };
  return {
    ...given,
    properties: {
      ...given.properties,
      'Idempotency-Key': {
        type: 'string',
        minLength: 1,
        maxLength: 255,
        description:
          'Optional. A unique string (a UUID): the same request with the same key within 24 h gets the first answer again, with Idempotent-Replayed: true (docs/idempotency.md)',
      },
    },
  };
}
