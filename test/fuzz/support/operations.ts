import type { PublishedContracts } from '../../../src/http/route-restrictions.ts';
import type { JsonSchema } from './schema-values.ts';

export interface OperationParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
}

/** One operation of the served OpenAPI document, as the fuzzer and the authorization matrix see it. */
export interface Operation {
  method: string;
  /** The path template, e.g. `/v1/webhooks/{id}`. */
  path: string;
  parameters: OperationParameter[];
  /** The JSON body's schema, when the operation takes one. */
  body?: JsonSchema;
  /** Who may call it: an API key, the admin token, or anyone. */
  auth: 'key' | 'admin' | 'none';
  /** The scope an API key needs (`x-scope`), for /v1 operations. */
  scope?: string;
  /** A JSON-RPC endpoint: per-call errors are JSON-RPC error objects, not the REST shape. */
  jsonRpc: boolean;
  /** The name a key's `methods` lists for this route (`x-method-name`). */
  methodName?: string;
  /** Where the route names the contracts it reads, checked against a key's `contracts` (`x-contracts`). */
  contracts?: PublishedContracts;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, RawOperation>>;
}

interface RawOperation {
  parameters?: { in: string; name: string; required?: boolean; schema: JsonSchema }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  security?: Record<string, string[]>[];
  'x-scope'?: string;
  'x-method-name'?: string;
  'x-contracts'?: PublishedContracts;
}

/** Every operation of the document (GET /healthz and /metrics included). */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(methods)) {
      const auth = path.startsWith('/admin') ? 'admin' : path.startsWith('/v1') ? 'key' : 'none';
      operations.push({
        method: method.toUpperCase(),
        path,
        parameters: (raw.parameters ?? []).map((p) => ({
          name: p.name,
          in: p.in as OperationParameter['in'],
          required: p.required ?? p.in === 'path',
          schema: p.schema,
        })),
        body: raw.requestBody?.content['application/json']?.schema,
        auth,
        scope: raw['x-scope'],
        jsonRpc: /^\/v1\/(rpc|bundler)\/\{chain\}\/\{network\}(\/\{apiKey\})?$/.test(path),
        methodName: raw['x-method-name'],
        contracts: raw['x-contracts'],
      });
    }
  }
  return operations;
}

/** Names a 400 may cite for this operation: its parameters and body properties, at any depth. */
export function nameableParts(operation: Operation): Set<string> {
  const names = new Set(operation.parameters.map((p) => p.name));
  const walk = (schema: JsonSchema | undefined, depth: number) => {
    if (!schema || depth > 3) return;
    for (const [name, child] of Object.entries(schema.properties ?? {})) {
      names.add(name);
      walk(child, depth + 1);
    }
    if (schema.items) walk(schema.items, depth + 1);
    for (const option of schema.anyOf ?? []) walk(option, depth + 1);
  };
  walk(operation.body, 0);
  return names;
}
