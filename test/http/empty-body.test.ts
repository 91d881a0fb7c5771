import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedUpClient } from '../dashboard/support.ts';
import type { OpenApiDocument } from '../support/openapi.ts';
import { type RawAnswer, rawRequest } from '../support/raw-request.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * HTTP wrappers that always send `Content-Type: application/json` send it with nothing on a DELETE or a
 * body-less POST: an empty body is no body on every route of the OpenAPI document (so a new route is
 * covered without editing this file), sized (`Content-Length: 0`) or chunked.
 */

/** JSON-RPC over HTTP reads its body as text itself (an empty one is its own parse error). */
const rawTextRoutes = new Set(['POST /v1/rpc/{chain}/{network}', 'POST /v1/rpc/{chain}/{network}/{apiKey}']);

interface Route {
  method: string;
  template: string;
}

function routesOf(doc: OpenApiDocument): Route[] {
  return Object.entries(doc.paths).flatMap(([template, methods]) =>
    Object.keys(methods).map((method) => ({ method: method.toUpperCase(), template })),
  );
}

const json = { 'content-type': 'application/json' };

/** A request whose body goes chunked (`Transfer-Encoding: chunked`, no Content-Length), as streaming clients send it. */
function chunkedRequest(url: string, method: string, path: string, headers: Record<string, string>, chunks: string[]) {
  const { hostname, port } = new URL(url);
  return new Promise<RawAnswer>((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers, timeout: 10_000 }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in time`)));
    req.on('error', reject);
    req.setHeader('transfer-encoding', 'chunked');
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}
/** Everything of an answer but its request id. */
const gist = (answer: RawAnswer) => `${answer.status} ${answer.text}`;

describe('an empty body with Content-Type: application/json is no body', () => {
  let t: TestService;
  let routes: Route[];
  let v1: Record<string, string>;
  const admin = () => ({ authorization: `Bearer ${t.adminToken}` });

  beforeAll(async () => {
    t = await startTestService();
    const doc = (await (await fetch(`${t.url}/v1/openapi.json`)).json()) as OpenApiDocument;
    routes = routesOf(doc).filter((r) => r.method !== 'GET' && !rawTextRoutes.has(`${r.method} ${r.template}`));
    const { key } = await t.createKey();
    v1 = { 'x-api-key': key };
  });
  afterAll(() => t?.stop());

  it('every POST, PUT, PATCH and DELETE of the OpenAPI document answers it as it answers no body at all', async () => {
    expect(routes.length).toBeGreaterThan(20);
    const problems: string[] = [];
    for (const { method, template } of routes) {
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) =>
        name === 'chain' ? 'ethereum' : name === 'network' ? 'devnet' : name === 'apiKey' ? v1['x-api-key']! : 'x1',
      );
      const headers = template.startsWith('/admin') ? admin() : v1;
      const none = await rawRequest(t.url, method, path, { headers });
      const sized = await rawRequest(t.url, method, path, { headers: { ...headers, ...json }, body: '' });
      const chunked = await chunkedRequest(t.url, method, path, { ...headers, ...json }, []);
      for (const [how, answer] of [
        ['Content-Length: 0', sized],
        ['chunked', chunked],
      ] as const) {
        if (gist(answer) !== gist(none)) problems.push(`${method} ${template} ${how}: ${gist(answer)}; without: ${gist(none)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("the newcomer's calls work: delete a key and a webhook, test a webhook, rotate a key", async () => {
    const created = await t.createKey();
    const hook = await fetch(`${t.url}/v1/webhooks`, {
      method: 'POST',
      headers: { ...v1, ...json },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', chain: 'ethereum', event_type: 'new_block' }),
    });
    expect(hook.status).toBe(201);
    const { id } = (await hook.json()) as { id: string };
    const send = (method: string, path: string, headers: Record<string, string>) =>
      rawRequest(t.url, method, path, { headers: { ...headers, ...json }, body: '' });

    expect((await send('POST', `/v1/webhooks/${id}/test`, v1)).status).toBe(202);
    expect((await send('DELETE', `/v1/webhooks/${id}`, v1)).json()).toEqual({ id, deleted: true });
    const rotated = await send('POST', `/admin/keys/${created.keyId}/rotate`, admin());
    expect(rotated.status).toBe(200);
    expect(rotated.json().key).not.toBe(created.key);
    const revoked = await send('DELETE', `/admin/keys/${created.keyId}`, admin());
    expect(revoked.status).toBe(200);
    // A route that needs a body says so, as when none is sent at all.
    const account = await send('POST', '/admin/accounts', admin());
    expect(account.status).toBe(400);
    expect(account.json().error.message).toBe('the body must be a JSON object (Content-Type: application/json)');
  });

  it('a real body on a route that takes none is still refused, chunked or sized', async () => {
    const chunked = await chunkedRequest(t.url, 'DELETE', '/v1/webhooks/x1', { ...v1, ...json }, ['{"a"', ':1}']);
    expect(chunked.status).toBe(400);
    expect(chunked.json().error.message).toBe('DELETE /v1/webhooks/:id takes no body; send it without one');
    const sized = await rawRequest(t.url, 'DELETE', '/v1/webhooks/x1', { headers: { ...v1, ...json }, body: '{"a":1}' });
    expect(sized.status).toBe(400);
  });

  it('the dashboard too: sign out and rotate a key with an empty JSON body', async () => {
    const { client } = await signedUpClient(t, 'empty-body@example.com');
    const created = await client.api('POST', '/keys', { name: 'wrapper', environment: 'test' });
    expect(created.status).toBe(201);
    const keyId = created.body.id as string;
    const rotated = await client.api('POST', `/keys/${keyId}/rotate`, undefined, { headers: json });
    expect(rotated.status).toBe(200);
    const signedOut = await client.api('DELETE', '/session', undefined, { headers: json });
    expect(signedOut.status).toBe(204);
  });
});
