import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../support/openapi.ts';
import { type RawAnswer, rawRequest } from '../support/raw-request.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Hostile input on every route of the served OpenAPI document (so a new route is covered without editing
 * this file): NUL and unpaired surrogates in path, query and body values, duplicated and non-decimal
 * query numbers, bad bytes, wrong content types, bodies past the limit. Each answer is a 4xx in the
 * spec's error shape whose message names the parameter; never a 5xx, a stack, SQL or a file path.
 */

interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
}
interface Operation {
  method: string;
  template: string;
  security: string[];
  pathParams: string[];
  query: { name: string; schema: SchemaNode }[];
  body?: SchemaNode;
}

/** JSON-RPC over HTTP takes its body as text whatever its type; its calls are the proxy's to check. */
const rawTextRoutes = new Set(['POST /v1/rpc/{chain}/{network}', 'POST /v1/rpc/{chain}/{network}/{apiKey}']);
/** The bundler reads its JSON whatever the Content-Type too, as /v1/rpc does, but with the REST routes' parser. */
const anyTypeRoutes = new Set(['POST /v1/bundler/{chain}/{network}', 'POST /v1/bundler/{chain}/{network}/{apiKey}']);
/** Routes whose bodies carry long lists (src/http/body-limits.ts) and JSON-RPC's own limit. */
const bodyLimits: Record<string, number> = {
  'POST /v1/webhooks': 5 * 1024 * 1024,
  'PATCH /v1/webhooks/{id}': 5 * 1024 * 1024,
  'PATCH /v1/webhooks/{id}/addresses': 1024 * 1024,
  'PATCH /api/update-webhook-addresses': 1024 * 1024,
  'PUT /api/update-webhook-addresses': 5 * 1024 * 1024,
  'POST /api/create-webhook': 5 * 1024 * 1024,
  'PATCH /api/update-webhook-nft-filters': 1024 * 1024,
  'POST /v1/gas/policies': 1024 * 1024,
  'PATCH /v1/gas/policies/{id}': 1024 * 1024,
  'POST /v1/bundler/{chain}/{network}': 1024 * 1024,
  'POST /v1/rpc/{chain}/{network}': 5 * 1024 * 1024,
  'POST /v1/bundler/{chain}/{network}/{apiKey}': 1024 * 1024,
  'POST /v1/rpc/{chain}/{network}/{apiKey}': 5 * 1024 * 1024,
  'POST /admin/accounts/{id}/keys': 1024 * 1024,
  'PATCH /admin/keys/{id}': 1024 * 1024,
};
const limitText = (bytes: number) => (bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`);

/** `apiKey` (the URL forms' key in the path) is the test's key, set once it exists. */
const placeholders: Record<string, string> = {
  chain: 'ethereum',
  network: 'devnet',
  address: `0x${'0'.repeat(40)}`,
  contract: `0x${'0'.repeat(40)}`,
  token_id: '1',
};

function operationsOf(doc: OpenApiDocument): Operation[] {
  return Object.entries(doc.paths).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const parameters = (op.parameters ?? []) as { in: string; name: string; schema: SchemaNode }[];
      const security = ((op as { security?: Record<string, unknown>[] }).security ?? []).flatMap(Object.keys);
      return {
        method: method.toUpperCase(),
        template,
        security,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        query: parameters.filter((p) => p.in === 'query').map(({ name, schema }) => ({ name, schema })),
        body: op.requestBody?.content['application/json']?.schema as SchemaNode | undefined,
      };
    }),
  );
}

const label = (op: Operation) => `${op.method} ${op.template}`;

function pathOf(op: Operation, replace: Record<string, string> = {}): string {
  return op.template.replace(/\{(\w+)\}/g, (_, name: string) => replace[name] ?? placeholders[name] ?? 'x1');
}

/** A problem with the answer, or undefined when it is the refusal expected. */
function refusalProblem(answer: RawAnswer, status: number, mentions?: string): string | undefined {
  if (answer.status !== status) return `answered ${answer.status} (expected ${status}): ${answer.text.slice(0, 200)}`;
  let body: { error?: { code?: unknown; message?: unknown; status?: unknown } };
  try {
    body = answer.json();
  } catch {
    return `answered a body that is not JSON: ${answer.text.slice(0, 200)}`;
  }
  const { error } = body;
  if (!error || typeof error.code !== 'string' || typeof error.message !== 'string' || error.status !== status) {
    return `answered a body not in the error shape: ${answer.text.slice(0, 200)}`;
  }
  if (Object.keys(body).length !== 1 || Object.keys(error).length !== 3) return `extra fields: ${answer.text}`;
  if (/\bat \S+ \(|select |insert |node_modules|\/src\/|\/work\//i.test(error.message)) return `leaks: ${error.message}`;
  if (mentions !== undefined && !error.message.includes(mentions)) return `message does not name ${mentions}: ${error.message}`;
  return undefined;
}

describe('hostile input on every route of the OpenAPI document', () => {
  let t: TestService;
  let operations: Operation[];
  let apiKey: string;

  beforeAll(async () => {
    t = await startTestService();
    const doc = (await (await fetch(`${t.url}/v1/openapi.json`)).json()) as OpenApiDocument;
    operations = operationsOf(doc);
    apiKey = (await t.createKey()).key;
    placeholders.apiKey = apiKey;
  });
  afterAll(() => t?.stop());

  const headersFor = (op: Operation): Record<string, string> => {
    // Two /admin routes lack the adminToken security in the document, but need it.
    if (op.security.includes('adminToken') || op.template.startsWith('/admin'))
      return { authorization: `Bearer ${t.adminToken}` };
    // Alchemy Notify's /api paths are served in the /v1 scope, with its key.
    if (op.template.startsWith('/v1') || op.template.startsWith('/api/')) return { 'x-api-key': apiKey };
    return {};
  };

  /** Sends each case and returns every problem found, so one run lists every route that fails. */
  async function problemsOf(
    cases: { name: string; method: string; path: string; headers?: Record<string, string>; body?: string | Buffer }[],
    expect: (answer: RawAnswer) => string | undefined,
  ): Promise<string[]> {
    const problems: string[] = [];
    for (const c of cases) {
      const answer = await rawRequest(t.url, c.method, c.path, { headers: c.headers, body: c.body });
      const problem = expect(answer);
      if (problem) problems.push(`${c.name}: ${problem}`);
    }
    return problems;
  }

  it('the document lists the routes this test is about', () => {
    expect(operations.length).toBeGreaterThan(40);
    expect(operations.filter((op) => op.pathParams.length > 0).length).toBeGreaterThan(20);
  });

  it('a NUL (%00) in any path parameter: 400 naming it (in the key of the URL forms: 401)', async () => {
    const keyCases = operations.filter((op) => op.pathParams.includes('apiKey'));
    expect(keyCases.length).toBeGreaterThan(1);
    for (const op of keyCases) {
      const answer = await rawRequest(t.url, op.method, pathOf(op, { apiKey: 'a%00b' }), {
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(refusalProblem(answer, 401), label(op)).toBeUndefined();
    }
    const cases = operations.flatMap((op) =>
      op.pathParams
        .filter((name) => name !== 'apiKey')
        .map((name) => ({
          name: `${label(op)} {${name}}`,
          method: op.method,
          path: pathOf(op, { [name]: `a%00b` }),
          headers: { ...headersFor(op), ...(op.body ? { 'content-type': 'application/json' } : {}) },
          body: op.body ? '{}' : undefined,
          param: name,
        })),
    );
    expect(cases.length).toBeGreaterThan(30);
    const problems: string[] = [];
    for (const c of cases) problems.push(...(await problemsOf([c], (a) => refusalProblem(a, 400, `'${c.param}'`))));
    expect(problems).toEqual([]);
  });

  it('a NUL in any query value, or a query parameter given twice: 400 naming it', async () => {
    const problems: string[] = [];
    for (const op of operations.filter((o) => !o.body)) {
      for (const { name, schema } of op.query) {
        const base = `${pathOf(op)}?${name}=`;
        const cases = [{ name: `${label(op)} ?${name}=%00`, method: op.method, path: `${base}a%00b`, headers: headersFor(op) }];
        if (schema.type !== 'array') {
          cases.push({
            name: `${label(op)} ?${name} twice`,
            method: op.method,
            path: `${base}1&${name}=2`,
            headers: headersFor(op),
          });
        }
        problems.push(...(await problemsOf(cases, (a) => refusalProblem(a, 400, `'${name}'`))));
      }
    }
    expect(problems).toEqual([]);
  });

  it('page and limit (every integer query parameter) negative, zero, huge, fractional, 1e400, hex or empty: 400 naming it', async () => {
    const values = ['-1', '0', '1e400', '1.5', '99999999999999999999', '0x10', '', '%20', 'NaN', 'Infinity'];
    const problems: string[] = [];
    let checked = 0;
    for (const op of operations) {
      for (const { name, schema } of op.query.filter((q) => q.schema.type === 'integer')) {
        checked++;
        // Zero and -1 are in range for no page or limit; other integers may allow them.
        const bad = ['page', 'limit'].includes(name) ? values : values.filter((v) => v !== '0' && v !== '-1');
        const cases = bad.map((value) => ({
          name: `${label(op)} ?${name}=${value}`,
          method: op.method,
          path: `${pathOf(op)}?${name}=${value}`,
          headers: headersFor(op),
        }));
        problems.push(...(await problemsOf(cases, (a) => refusalProblem(a, 400, `'${name}'`))));
        void schema;
      }
    }
    expect(checked).toBeGreaterThan(10);
    expect(problems).toEqual([]);
  });

  it('NUL, an unpaired surrogate or 1e400 anywhere in a JSON body: 400 naming the field by its path', async () => {
    const problems: string[] = [];
    // JSON-RPC bodies answer such a value per call (-32602 at that call): test/bundler/hostile-values.test.ts.
    const jsonRpc = (o: Operation) => rawTextRoutes.has(label(o)) || anyTypeRoutes.has(label(o));
    for (const op of operations.filter((o) => o.body && !jsonRpc(o))) {
      const fields = Object.keys(op.body!.properties ?? {});
      const field = fields[0] ?? 'params';
      const headers = { ...headersFor(op), 'content-type': 'application/json' };
      const cases = [
        ...fields.map((name) => ({ text: `{"${name}":"a\\u0000b"}`, mentions: `'${name}'` })),
        { text: `{"${field}":{"addresses":["0x1","a\\u0000"]}}`, mentions: `'${field}.addresses[1]'` },
        { text: `{"${field}":"\\ud800"}`, mentions: `'${field}'` },
        { text: `{"${field}":[1e400]}`, mentions: `'${field}[0]'` },
        { text: `{"${field}":{"a\\u0000":1}}`, mentions: `'${field}.a` },
      ];
      for (const { text, mentions } of cases) {
        const sent = [{ name: `${label(op)} ${text}`, method: op.method, path: pathOf(op), headers, body: text }];
        problems.push(...(await problemsOf(sent, (a) => refusalProblem(a, 400, mentions))));
      }
    }
    expect(problems).toEqual([]);
  });

  it('a body nested 250,000 levels deep is refused as quickly as any other (no recursion, no path copies)', async () => {
    const deep = `{"x":${'['.repeat(250_000)}"a\\u0000"${']'.repeat(250_000)}}`;
    const started = performance.now();
    const answer = await rawRequest(t.url, 'POST', '/v1/webhooks', {
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: deep,
    });
    expect(refusalProblem(answer, 400, "'x[0][0][0]")).toBeUndefined();
    expect(answer.text.length).toBeLessThan(500);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
  });

  it('bad bytes, bad JSON and wrong content types on every route with a JSON body', async () => {
    const problems: string[] = [];
    const notUtf8 = Buffer.concat([Buffer.from('{"name":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    for (const op of operations.filter((o) => o.body && !rawTextRoutes.has(label(o)))) {
      const send = (body: string | Buffer, contentType: string) => ({
        name: `${label(op)} ${contentType} ${String(body).slice(0, 20)}`,
        method: op.method,
        path: pathOf(op),
        headers: { ...headersFor(op), 'content-type': contentType },
        body,
      });
      const json = 'application/json';
      problems.push(...(await problemsOf([send(notUtf8, json)], (a) => refusalProblem(a, 400, 'UTF-8'))));
      // An empty body is no body (empty-body.test.ts): answered as when none is sent.
      problems.push(...(await problemsOf([send('{"name":', json)], (a) => refusalProblem(a, 400, 'JSON'))));
      const wrongTypes = [send('{}', 'text/plain'), send('--x\r\n\r\n--x--', 'multipart/form-data; boundary=x')];
      if (anyTypeRoutes.has(label(op))) {
        problems.push(...(await problemsOf([send('{"name":', 'text/plain')], (a) => refusalProblem(a, 400, 'JSON'))));
      } else {
        problems.push(...(await problemsOf(wrongTypes, (a) => refusalProblem(a, 415, 'application/json'))));
      }
    }
    expect(problems).toEqual([]);
  });

  it("a body past the route's limit: 413 naming the limit", async () => {
    const problems: string[] = [];
    for (const op of operations.filter((o) => o.body)) {
      const limit = bodyLimits[label(op)] ?? 64 * 1024;
      const body = `{"x":"${'a'.repeat(limit)}"}`;
      const sent = [
        {
          name: label(op),
          method: op.method,
          path: pathOf(op),
          headers: { ...headersFor(op), 'content-type': 'application/json' },
          body,
        },
      ];
      problems.push(...(await problemsOf(sent, (a) => refusalProblem(a, 413, limitText(limit)))));
    }
    expect(problems).toEqual([]);
  });

  it('a route that takes no body: an empty one is ignored whatever its type, a real one is 400', async () => {
    const problems: string[] = [];
    for (const op of operations.filter((o) => !o.body && o.method !== 'GET')) {
      const headers = { ...headersFor(op), 'content-type': 'application/json' };
      const path = pathOf(op);
      const empty = await rawRequest(t.url, op.method, path, { headers, body: '' });
      if (empty.status >= 500 || empty.status === 415 || /JSON/.test(empty.text)) {
        problems.push(`${label(op)} empty JSON body: ${empty.status} ${empty.text.slice(0, 200)}`);
      }
      const sent = [{ name: `${label(op)} with a body`, method: op.method, path, headers, body: '{"a":1}' }];
      problems.push(...(await problemsOf(sent, (a) => refusalProblem(a, 400, 'takes no body'))));
    }
    const gets = operations.filter((o) => o.method === 'GET' && o.template !== '/metrics');
    for (const op of gets) {
      const sent = [
        {
          name: `${label(op)} with a body`,
          method: 'GET',
          path: pathOf(op),
          headers: { ...headersFor(op), 'content-type': 'application/json' },
          body: '{"a":1}',
        },
      ];
      problems.push(...(await problemsOf(sent, (a) => refusalProblem(a, 400, 'takes no body'))));
    }
    expect(problems).toEqual([]);
  });

  it("the issue's examples, the dashboard's unauthenticated routes included, and the service is healthy after", async () => {
    const admin = { authorization: `Bearer ${t.adminToken}` };
    const json = { 'content-type': 'application/json' };
    const v1 = { 'x-api-key': apiKey };
    const cases: [string, string, Record<string, string>, string | undefined, string][] = [
      ['GET', '/v1/webhooks/%00', v1, undefined, "'id'"],
      ['POST', '/v1/webhooks/%00/test', v1, undefined, "'id'"],
      ['GET', '/v1/webhooks/%00/deliveries', v1, undefined, "'id'"],
      ['GET', '/v1/gas/policies/%00/usage', v1, undefined, "'id'"],
      ['GET', '/admin/accounts/acc_%00/keys', admin, undefined, "'id'"],
      ['DELETE', '/admin/keys/%00', admin, undefined, "'id'"],
      ['GET', '/admin/webhooks?account_id=%00', admin, undefined, "'account_id'"],
      ['POST', '/admin/accounts', { ...admin, ...json }, '{"name":"a\\u0000","plan":"free"}', "'name'"],
      ['POST', '/v1/gas/policies', { ...v1, ...json }, '{"name":"a\\u0000","chain":"ethereum","network":"devnet"}', "'name'"],
      ['POST', '/dashboard/api/session', json, '{"email":"a\\u0000@b.c","password":"xxxxxxxxxxxx"}', "'email'"],
      ['POST', '/dashboard/api/signup', json, '{"email":"a@b.c","password":"xxxxxxxxxxxx","name":"\\ud800"}', "'name'"],
      ['POST', '/dashboard/api/password-reset', json, '{"email":"a\\u0000@b.c"}', "'email'"],
    ];
    const problems: string[] = [];
    for (const [method, path, headers, body, mentions] of cases) {
      problems.push(
        ...(await problemsOf([{ name: `${method} ${path}`, method, path, headers, body }], (a) =>
          refusalProblem(a, 400, mentions),
        )),
      );
    }
    expect(problems).toEqual([]);
    // A path no route takes is authenticated first, as every /v1 path: without a key, 401.
    const unrouted = await rawRequest(t.url, 'GET', '/v1/nothing/%00');
    expect(refusalProblem(unrouted, 401)).toBeUndefined();
    expect(refusalProblem(await rawRequest(t.url, 'GET', '/v1/nothing/%00', { headers: v1 }), 404)).toBeUndefined();
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
  });
});
