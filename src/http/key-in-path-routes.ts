import type { FastifyInstance, RouteOptions } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route is served a second time at `{url}/:apiKey`, with the key in the path instead of a header
     * (wallets and tools that take only a URL). Same handler, scope, limits and compute units; the /v1
     * guard takes the key from the path.
     */
    keyInPath?: boolean;
  }
}

const apiKeyParam = {
  type: 'string',
  description:
    'Your API key, in the path instead of the X-API-Key header: for tools that take only a URL (MetaMask, Foundry, Hardhat). A different key in a header is refused (401).',
};

interface ObjectSchema {
  properties?: Record<string, unknown>;
  required?: string[];
}

/** The route's schema for the URL form: the `apiKey` path parameter, and no header needed. */
function schemaWithKeyInPath(schema: RouteOptions['schema']): RouteOptions['schema'] {
  if (schema === undefined) return undefined;
  const params = (schema.params ?? { type: 'object' }) as ObjectSchema;
  const summary = (schema as { summary?: string }).summary;
  return {
    ...schema,
    ...(summary === undefined ? {} : { summary: `${summary} (API key in the path)` }),
    params: {
      ...params,
      properties: { ...params.properties, apiKey: apiKeyParam },
      required: [...(params.required ?? []), 'apiKey'],
    },
    // The key is in the path: no header is needed.
    security: [],
  } as RouteOptions['schema'];
}

/**
 * Registers, for every route of this scope (and those below it) whose config says `keyInPath`, its twin
 * at `{url}/:apiKey`. Call before those routes are registered (an `onRoute` hook).
 */
export function serveKeyInPathForms(app: FastifyInstance): void {
  app.addHook('onRoute', function addKeyInPathTwin(route) {
    if (route.config?.keyInPath !== true) return;
    // Tagged off, so this hook does not twin the twin.
    this.route({
      ...route,
      url: `${route.routePath.replace(/\/$/, '')}/:apiKey`,
      path: undefined,
      config: { ...route.config, keyInPath: false },
      schema: schemaWithKeyInPath(route.schema),
    } as RouteOptions);
  });
}
