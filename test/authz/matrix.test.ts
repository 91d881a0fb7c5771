import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyMethodRule, renderScopeTable, type ScopedDocument } from '../../scripts/scope-table.ts';
import { scopes } from '../../src/auth/scopes.ts';
import { bundlerMethodScopes } from '../../src/bundler/bundler-calls.ts';
import type { Operation } from '../fuzz/support/operations.ts';
import { restrictKey } from '../support/key-restrictions.ts';
import { closeOf, type RawClient } from '../ws/support/ws-client.ts';
import { anvilAccount, type Matrix, namesAccountResource, pathFor, startMatrix } from './support/matrix-fixtures.ts';
import {
  type CaseKey,
  contractCases,
  environmentCases,
  methodCases,
  methodHalves,
  queryFor,
  type RestrictionCase,
} from './support/restriction-cases.ts';
import { socketForms } from './support/socket-forms.ts';

type CaseRequest = Pick<RestrictionCase, 'values' | 'query'>;

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
  body: any;
}

/** The call each JSON-RPC endpoint gets in the matrix, and the scopes its policy lets through. */
const jsonRpcProbes: Record<string, { method: string; allowed: (scope: string) => boolean }> = {
  '/v1/rpc/{chain}/{network}': {
    method: 'eth_chainId',
    allowed: (scope) => proxyMethodRule('evm', 'eth_chainId', true) === `\`${scope}\``,
  },
  '/v1/bundler/{chain}/{network}': {
    method: 'eth_supportedEntryPoints',
    allowed: (scope) => (bundlerMethodScopes('eth_supportedEntryPoints') as readonly string[]).includes(scope),
  },
};
// The URL forms (the key in the path): the same endpoints, the same probes.
for (const path of Object.keys(jsonRpcProbes)) jsonRpcProbes[`${path}/{apiKey}`] = jsonRpcProbes[path]!;

/** Routes of docs/dashboard-api.md a visitor reaches without a session (signing in, signing up, resetting). */
const sessionless = /^POST \/dashboard\/api\/(session|signup|signup\/verify|password-reset|password-reset\/confirm)$/;

describe('authorization matrix, from the OpenAPI document', () => {
  let m: Matrix;
  beforeAll(async () => {
    m = await startMatrix();
  }, 120_000);
  afterAll(() => m?.t.stop());

  const send = async (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> => {
    const response = await fetch(`${m.t.url}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  /**
   * One request of the operation: alice's resources in the path, the query values a route needs to get
   * past validation (`network`, `owner`...), an empty body (the scope is checked before it). `key`: the
   * key sent, also put in the path of the URL forms (`{apiKey}`); `given`: a case's own values.
   */
  const requestOf = (operation: Operation, owner = m.alice, key?: string, given: CaseRequest = {}) => {
    const probe = jsonRpcProbes[operation.path];
    const body = probe ? { jsonrpc: '2.0', id: 1, method: probe.method, params: [] } : operation.body ? {} : undefined;
    const template = key === undefined ? operation.path : operation.path.replace('{apiKey}', key);
    return { path: `${pathFor(template, owner, given.values)}${queryFor(operation, given)}`, body };
  };
  const withKey = (key: string, operation: Operation, owner = m.alice, given: CaseRequest = {}) => {
    const { path, body } = requestOf(operation, owner, key, given);
    return send(operation.method, path, { 'x-api-key': key }, body);
  };
  const v1 = () => m.operations.filter((o) => o.auth === 'key');
  // Deletions last: they remove the fixture the operations after them name.
  const inOrder = (operations: Operation[]) =>
    [...operations].sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
  const label = (o: Operation) => `${o.method} ${o.path}`;
  const refusedForScope = (answer: Answer) =>
    answer.status === 403 ||
    (Array.isArray(answer.body) ? answer.body : [answer.body]).some((item) => /scope/.test(item?.error?.message ?? ''));

  it('docs/scopes.md is what the code generates (npm run generate:scopes)', () => {
    const generated = renderScopeTable(scopedDocumentOf(m.operations));
    expect(readFileSync(new URL('../../docs/scopes.md', import.meta.url), 'utf8')).toBe(generated);
  });

  it("a key of another account gets 404 on every route naming this account's resource; public chain data stays readable", async () => {
    const wrong: string[] = [];
    for (const operation of inOrder(v1())) {
      const answer = await withKey(m.malloryKey, operation);
      // A 400 the owner gets too comes from validation before any lookup: it tells nothing of the resource.
      const sameForOwner = async () => answer.status === 400 && (await withKey(m.aliceKey, operation)).status === 400;
      if (namesAccountResource(operation) && answer.status !== 404 && !(await sameForOwner())) {
        wrong.push(`${label(operation)}: ${answer.status}, not 404`);
      }
      const publicAddress = /\{address\}/.test(operation.path) && !namesAccountResource(operation);
      const ownerStatus = publicAddress ? (await withKey(m.aliceKey, operation)).status : 0;
      if (publicAddress && answer.status !== ownerStatus)
        wrong.push(`${label(operation)} (public data): ${answer.status}, the owner's ${ownerStatus}`);
    }
    expect(namesAccountResource({ path: '/v1/webhooks/{id}' })).toBe(true);
    expect(wrong).toEqual([]);
  });

  it('a key holding one scope gets 403 exactly where x-scope names another', async () => {
    const wrong: string[] = [];
    const restOperations = inOrder(v1());
    expect(restOperations.filter((o) => o.scope).length).toBeGreaterThan(20);
    for (const operation of restOperations) {
      for (const scope of scopes) {
        const answer = await withKey(m.singleScopeKeys[scope]!, operation);
        const probe = jsonRpcProbes[operation.path];
        const expected = probe ? !probe.allowed(scope) : operation.scope !== undefined && operation.scope !== scope;
        const refused = probe ? refusedForScope(answer) : answer.status === 403;
        if (refused !== expected)
          wrong.push(`${label(operation)} with '${scope}': ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 160)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('every JSON-RPC URL: a case-variant member is -32602 for a contracts-restricted key; a percent-encoded path is served as the plain one', async () => {
    const wrong: string[] = [];
    const caseVariantCall = { jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ To: anvilAccount, data: '0x' }, 'latest'] };
    for (const operation of v1().filter((o) => jsonRpcProbes[o.path] !== undefined)) {
      const key = m.contractsKey;
      const { path, body } = requestOf(operation, m.alice, key);
      const refused = await send('POST', path, { 'x-api-key': key }, caseVariantCall);
      if (refused.body?.error?.code !== -32602) wrong.push(`${label(operation)} with "To": ${JSON.stringify(refused.body)}`);
      // The key's first letter and the path's `v` percent-encoded: the same answer, never a way around the key.
      const encoded = path.replace(key, `%73${key.slice(1)}`).replace('/v1/', '/%761/');
      const plain = await send('POST', path, { 'x-api-key': key }, body);
      const spelled = await send('POST', encoded, { 'x-api-key': key }, body);
      if (spelled.status !== plain.status || JSON.stringify(spelled.body) !== JSON.stringify(plain.body))
        wrong.push(`${label(operation)} as ${encoded}: ${spelled.status}, the plain path ${plain.status}`);
    }
    expect(wrong).toEqual([]);
  });

  it('restricted keys, from x-method-name and x-contracts: methods lacking the route 403, listing it served; contracts; environments', async () => {
    const routes = inOrder(v1().filter((o) => !o.jsonRpc));
    // Every REST and NFT route has a name a key's methods can list; every one naming a contract has a rule.
    expect(routes.filter((o) => o.methodName === undefined).map(label)).toEqual([]);
    const namesContract = (o: Operation) => o.parameters.some((p) => /^contract/.test(p.name));
    expect(routes.filter((o) => namesContract(o) && o.contracts === undefined).map(label)).toEqual([]);
    const halves = methodHalves(routes);
    const keys: Record<CaseKey, string> = {
      methodsEven: (await m.newKey({ restrictions: { methods: halves.even } })).key,
      methodsOdd: (await m.newKey({ restrictions: { methods: halves.odd } })).key,
      contracts: m.contractsKey,
      unrestricted: m.aliceKey,
      test: m.aliceKey,
      live: (await m.newKey({ environment: 'live' })).key,
    };
    const cases = [...methodCases(routes), ...contractCases(routes), ...environmentCases(inOrder(v1()))];
    // The NFT v3 routes under the URL form are among them (55 cases of 161 when written).
    expect(cases.filter((c) => c.operation.path.startsWith('/v1/rpc/{chain}/{network}/{apiKey}/')).length).toBeGreaterThan(40);
    const wrong: string[] = [];
    for (const c of cases) {
      const answer = await withKey(keys[c.key], c.operation, m.alice, c);
      const messages = (Array.isArray(answer.body) ? answer.body : [answer.body]).map((item) => item?.error?.message ?? '');
      const held = c.refused
        ? answer.status === 403 && messages.some((message) => c.refused!.test(message))
        : answer.status !== 403;
      if (!held)
        wrong.push(
          `${label(c.operation)}, ${c.label} (${c.key}): ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 200)}`,
        );
    }
    console.log(`restricted keys: ${cases.length} cases`);
    expect(wrong).toEqual([]);
  });

  it('open sockets in every form follow their key: revoked 4001 within 1 s, restrictions unmet 4003, changed methods on the next message', async () => {
    const forms = await socketForms(m.t.url);
    const wrong: string[] = [];
    const revocationMs: number[] = [];
    await Promise.all(
      forms.map(async (form) => {
        const revoked = await m.newKey({ restrictions: form.base });
        const changed = await m.newKey({ restrictions: form.base });
        const [first, second] = await Promise.all([form.open(revoked.key), form.open(changed.key)]);
        await restrictKey(m.t, changed.id, { ...form.base, methods: ['eth_blockNumber'] });
        const refused = await second.call('eth_chainId');
        if (refused.error?.code !== -32010 || !/restrictions\.methods/.test(refused.error.message))
          wrong.push(`${form.name}: eth_chainId after methods changed: ${JSON.stringify(refused)}`);
        if (!(await second.call('eth_blockNumber')).result) wrong.push(`${form.name}: the listed method refused`);
        const unmet = await changeAndClose(second, () => restrictKey(m.t, changed.id, { ...form.base, ips: ['203.0.113.7'] }));
        if (unmet.code !== 4003 || !/ips/.test(unmet.reason)) wrong.push(`${form.name}: ips unmet: ${JSON.stringify(unmet)}`);
        const closed = await changeAndClose(first, () => m.t.admin('DELETE', `/admin/keys/${revoked.id}`));
        if (closed.code !== 4001 || closed.afterMs > 1_000) wrong.push(`${form.name}: revoked: ${JSON.stringify(closed)}`);
        revocationMs.push(closed.afterMs);
      }),
    );
    console.log(`revocation closed the sockets of ${forms.length} forms after at most ${Math.max(...revocationMs)} ms`);
    expect(wrong).toEqual([]);
  });

  it('a revoked key gets 401 everywhere; admin routes 401 without the admin token', async () => {
    const wrong: string[] = [];
    for (const operation of v1()) {
      // Refused authentications spend the client address's budget (20 per second): stay under it.
      await new Promise((resolve) => setTimeout(resolve, 60));
      const answer = await withKey(m.revokedKey, operation);
      if (answer.status !== 401) wrong.push(`${label(operation)} with a revoked key: ${answer.status}`);
    }
    for (const operation of m.operations.filter((o) => o.auth === 'admin')) {
      const { path, body } = requestOf(operation);
      for (const headers of [{}, { authorization: 'Bearer not-the-admin-token' }, { 'x-api-key': m.aliceKey }] as Record<
        string,
        string
      >[]) {
        const answer = await send(operation.method, path, headers, body);
        if (answer.status !== 401) wrong.push(`${label(operation)} with ${JSON.stringify(headers)}: ${answer.status}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('dashboard routes: 401 without a session, 403 without the CSRF token on a state change, 404 across accounts', async () => {
    const documented = [
      ...readFileSync(new URL('../../docs/dashboard-api.md', import.meta.url), 'utf8').matchAll(
        /^\| `(GET|POST|PUT|PATCH|DELETE) (\/dashboard\/api\/[^`]*)`/gm,
      ),
    ].map(([, method, path]) => ({ method: method!, path: path! }));
    const mounted: { method: string; path: string }[] = [];
    for (const operation of v1()) {
      const path = `/dashboard/api${operation.path}`;
      const probe = await m.alice.session.call(operation.method, pathFor(path, m.alice), operation.body ? {} : undefined, {
        csrf: false,
      });
      const unmounted =
        (probe.status === 404 && String(probe.body?.error?.message).startsWith('no route')) || probe.status === 405;
      if (!unmounted) mounted.push({ method: operation.method, path });
    }
    expect(mounted.length).toBeGreaterThan(10);
    const wrong: string[] = [];
    for (const route of [...documented, ...mounted]) {
      const name = `${route.method} ${route.path}`;
      const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : {};
      const anonymous = await send(route.method, pathFor(route.path, m.alice), {}, body);
      if (!sessionless.test(name) && anonymous.status !== 401) wrong.push(`${name} without a session: ${anonymous.status}`);
      if (sessionless.test(name) || route.method === 'GET') continue;
      const noCsrf = await m.alice.session.call(route.method, pathFor(route.path, m.alice), body, { csrf: false });
      if (noCsrf.status !== 403) wrong.push(`${name} without the CSRF token: ${noCsrf.status}`);
    }
    for (const route of inOrder(
      [...documented, ...mounted].map((r) => ({ ...r, parameters: [], auth: 'none', jsonRpc: false }) as Operation),
    )) {
      if (!namesAccountResource(route) || sessionless.test(`${route.method} ${route.path}`)) continue;
      const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : {};
      const across = await m.mallory.session.call(route.method, pathFor(route.path, m.alice), body);
      const validationOnly =
        across.status === 400 && (await m.alice.session.call(route.method, pathFor(route.path, m.alice), body)).status === 400;
      if (across.status !== 404 && !validationOnly)
        wrong.push(`${route.method} ${route.path} on another account's resource: ${across.status}`);
    }
    expect(wrong).toEqual([]);
  });
});

/** The socket's close after `change` (an admin call), timed from the call. */
async function changeAndClose(client: RawClient, change: () => Promise<unknown>) {
  const since = Date.now();
  await change();
  return closeOf(client, since).catch((error: Error) => ({ code: 0, reason: error.message, afterMs: Number.NaN }));
}

/** What the table is made of: every operation's path, method and x-scope. */
function scopedDocumentOf(operations: Operation[]): ScopedDocument {
  const paths: ScopedDocument['paths'] = {};
  for (const o of operations) {
    paths[o.path] ??= {};
    paths[o.path]![o.method.toLowerCase()] = o.scope ? { 'x-scope': o.scope } : {};
  }
  return { paths };
}
