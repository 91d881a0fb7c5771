import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResponseChecker, type OpenApiDocument } from '../support/openapi.ts';
import { startTestService, type TestService } from '../support/service.ts';

const contract = `0x${'c'.repeat(40)}`;
const sender = `0x${'5'.repeat(40)}`;

describe('/v1/gas/policies', () => {
  let t: TestService;
  let key: string;
  let otherKey: string;
  let checkSchema: ReturnType<typeof createResponseChecker>;

  /** Calls the API over HTTP and checks the answer against the OpenAPI document the service publishes. */
  const call = async (apiKey: string | undefined, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: {
        ...(apiKey ? { 'x-api-key': apiKey } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    // biome-ignore lint/suspicious/noExplicitAny: responses are inspected freely
    const json = (await response.json()) as any;
    const template = path.split('?')[0]!.replace(/^\/v1\/gas\/policies\/[^/]+$/, '/v1/gas/policies/{id}');
    checkSchema(method, template, response.status, json);
    return { status: response.status, body: json };
  };
  const api = (method: string, path: string, body?: unknown) => call(key, method, path, body);
  const storedRows = async () =>
    Number(
      (
        await t.database.db
          .selectFrom('gas_policies')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    t = await startTestService();
    key = (await t.createKey()).key;
    otherKey = (await t.createKey()).key;
    checkSchema = createResponseChecker((await (await fetch(`${t.url}/v1/openapi.json`)).json()) as OpenApiDocument);
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
  });

  it('creates, gets, lists, updates and deletes a policy', async () => {
    const created = await api('POST', '/v1/gas/policies', {
      name: ' Onboarding ',
      chain: 'ethereum',
      rules: {
        max_gas_usd: '50.00',
        max_per_user_per_day: 5,
        allowed_contracts: [contract.toUpperCase().replace('0X', '0x')],
        allowed_methods: ['transfer(address,uint256)', '0x095EA7B3'],
        rate_limit: { ops: 10, per_seconds: 60 },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^gp_[1-9A-HJ-NP-Za-km-z]{16,}$/),
      name: 'Onboarding',
      chain: 'ethereum',
      // A test key's default network of the chain.
      network: 'devnet',
      rules: {
        max_gas_usd: '50.00',
        max_per_user_per_day: 5,
        allowed_contracts: [contract],
        allowed_methods: ['transfer(address,uint256)', '0x095ea7b3'],
        rate_limit: { ops: 10, per_seconds: 60 },
        sponsorship_expiry_s: 600,
      },
      status: 'active',
      created_at: expect.any(String),
      updated_at: created.body.created_at,
      // It names contracts and methods, and the anvil traces calls.
      call_rules_enforcement: 'traced',
    });
    const id = created.body.id as string;
    // Stored parsed: the sponsor reads selectors, not signatures.
    const stored = await t.database.db.selectFrom('gas_policies').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(stored.rules).toMatchObject({
      allowed_methods: [
        { selector: '0xa9059cbb', method: 'transfer(address,uint256)' },
        { selector: '0x095ea7b3', method: '0x095ea7b3' },
      ],
    });

    const got = await api('GET', `/v1/gas/policies/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);

    const listed = await api('GET', '/v1/gas/policies');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ policies: [created.body], page: 1, total: 1 });

    const renamed = await api('PATCH', `/v1/gas/policies/${id}`, { name: 'Onboarding v2', status: 'paused' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id, name: 'Onboarding v2', status: 'paused', rules: created.body.rules });
    expect(Date.parse(renamed.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.body.created_at));
    expect(renamed.body.created_at).toBe(created.body.created_at);

    // New rules replace the whole set.
    const replaced = await api('PATCH', `/v1/gas/policies/${id}`, { rules: { max_ops: 100, sponsorship_expiry_s: 120 } });
    expect(replaced.body.rules).toEqual({ max_ops: 100, sponsorship_expiry_s: 120 });
    // The rules as shown are taken back unchanged.
    const again = await api('PATCH', `/v1/gas/policies/${id}`, { rules: created.body.rules, status: 'active' });
    expect(again.body).toMatchObject({ rules: created.body.rules, status: 'active' });
    const unchanged = await api('PATCH', `/v1/gas/policies/${id}`, {});
    expect(unchanged.body).toEqual(again.body);

    const deleted = await api('DELETE', `/v1/gas/policies/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id, deleted: true });
    for (const [method, body] of [['GET'], ['PATCH', { status: 'paused' }], ['DELETE']] as const) {
      const answer = await api(method, `/v1/gas/policies/${id}`, body);
      expect(answer.status, method).toBe(404);
      expect(answer.body.error).toEqual({ code: 'not_found', status: 404, message: `gas policy '${id}' does not exist` });
    }
    expect((await api('GET', '/v1/gas/policies')).body.total).toBe(0);
    // The row stays for sponsorships signed under it, marked deleted.
    const kept = await t.database.db.selectFrom('gas_policies').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(kept.deleted_at).toBeInstanceOf(Date);
    expect(kept.status).toBe('active');
  });

  it('refuses each bad rule with 400 naming its path, and stores nothing', async () => {
    const before = await storedRows();
    const cases: [Record<string, unknown>, string][] = [
      [{ colour: 'red' }, 'rules.colour'],
      [{ max_gas_usd: 50 }, 'rules.max_gas_usd'],
      [{ max_gas_usd: '0' }, 'rules.max_gas_usd'],
      [{ max_gas_usd_per_op: '-1' }, 'rules.max_gas_usd_per_op'],
      [{ max_gas_usd_per_sender: 'five' }, 'rules.max_gas_usd_per_sender'],
      [{ max_ops: 0 }, 'rules.max_ops'],
      [{ max_ops_per_sender: 2.5 }, 'rules.max_ops_per_sender'],
      [{ max_per_user_per_day: '3' }, 'rules.max_per_user_per_day'],
      [{ allowed_contracts: [contract, contract, '0x1234'] }, 'rules.allowed_contracts[2]'],
      [{ allowed_contracts: [] }, 'rules.allowed_contracts'],
      [{ allowed_methods: ['transfer(address,uint256)', 'transfer(adress,uint256)'] }, 'rules.allowed_methods[1]'],
      [{ allowed_senders: [sender, 7] }, 'rules.allowed_senders[1]'],
      [{ blocked_senders: ['nobody'] }, 'rules.blocked_senders[0]'],
      [{ start_time: 'next week' }, 'rules.start_time'],
      [{ end_time: Date.now() }, 'rules.end_time'],
      [{ start_time: '2026-12-02T00:00:00Z', end_time: '2026-12-01T00:00:00Z' }, 'rules.end_time'],
      [{ rate_limit: { ops: 5 } }, 'rules.rate_limit.per_seconds'],
      [{ rate_limit: { ops: -1, per_seconds: 60 } }, 'rules.rate_limit.ops'],
      [{ rate_limit: { ops: 1, per_seconds: 60, burst: 3 } }, 'rules.rate_limit.burst'],
      [{ sponsorship_expiry_s: 30 }, 'rules.sponsorship_expiry_s'],
      [{ sponsorship_expiry_s: 86_401 }, 'rules.sponsorship_expiry_s'],
    ];
    for (const [rules, path] of cases) {
      const answer = await api('POST', '/v1/gas/policies', { name: 'bad', chain: 'ethereum', rules });
      expect(answer.status, JSON.stringify(rules)).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'invalid_request', status: 400 });
      expect(answer.body.error.message, JSON.stringify(rules)).toContain(`'${path}'`);
    }
    expect(
      (await api('POST', '/v1/gas/policies', { name: 'bad', chain: 'ethereum', rules: { colour: 1 } })).body.error.message,
    ).toMatch(/'rules\.colour': is not a known rule/);

    const bodies: [unknown, string][] = [
      [{ chain: 'ethereum', rules: {} }, 'name'],
      [{ name: '   ', chain: 'ethereum', rules: {} }, 'name'],
      [{ name: 'x', rules: {} }, 'chain'],
      [{ name: 'x', chain: 'ethereum' }, 'rules'],
      [{ name: 'x', chain: 'ethereum', rules: [] }, 'rules'],
      [{ name: 'x', chain: 'ethereum', rules: {}, status: 'paused' }, 'status'],
      [{ name: 'x', chain: 'dogechain', rules: {} }, 'chain'],
      [{ name: 'x', chain: 'ethereum', network: 'goerli', rules: {} }, 'network'],
    ];
    for (const [body, param] of bodies) {
      const answer = await api('POST', '/v1/gas/policies', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.message, JSON.stringify(body)).toContain(`'${param}'`);
    }
    // A test key cannot sponsor on a mainnet.
    const mainnet = await api('POST', '/v1/gas/policies', { name: 'x', chain: 'ethereum', network: 'mainnet', rules: {} });
    expect(mainnet.status).toBe(403);
    expect(await storedRows()).toBe(before);
  });

  it('PATCH takes only name, rules and status (active or paused), validated as at create', async () => {
    const created = await api('POST', '/v1/gas/policies', { name: 'strict', chain: 'ethereum', rules: { max_ops: 3 } });
    const path = `/v1/gas/policies/${created.body.id}`;
    const cases: [unknown, string][] = [
      [{ status: 'deleted' }, 'status'],
      [{ chain: 'ethereum' }, 'chain'],
      [{ network: 'mainnet' }, 'network'],
      [{ id: 'gp_other' }, 'id'],
      [{ name: '' }, 'name'],
      [{ rules: { max_ops: 'many' } }, 'rules.max_ops'],
      [{ rules: { allowed_contracts: [contract, 'x'] } }, 'rules.allowed_contracts[1]'],
      [{ rules: { foo: true } }, 'rules.foo'],
    ];
    for (const [body, param] of cases) {
      const answer = await api('PATCH', path, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.message, JSON.stringify(body)).toContain(`'${param}'`);
    }
    expect((await api('GET', path)).body).toEqual(created.body);
    await api('DELETE', path);
  });

  it('needs the gas:manage scope (403) and a key (401)', async () => {
    const created = await api('POST', '/v1/gas/policies', { name: 'scoped', chain: 'ethereum', rules: {} });
    const path = `/v1/gas/policies/${created.body.id}`;
    const noScope = (await t.createKey({ scopes: ['rpc:read', 'webhooks:manage', 'wallets:manage', 'bundler:send'] })).key;
    for (const [method, route, body] of [
      ['POST', '/v1/gas/policies', { name: 'x', chain: 'ethereum', rules: {} }],
      ['GET', '/v1/gas/policies'],
      ['GET', path],
      ['PATCH', path, { status: 'paused' }],
      ['DELETE', path],
    ] as const) {
      const refused = await call(noScope, method, route, body);
      expect(refused.status, `${method} ${route}`).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'forbidden', status: 403 });
      expect(refused.body.error.message).toContain('gas:manage');
      expect((await call(undefined, method, route, body)).status, `${method} ${route} without a key`).toBe(401);
    }
    expect((await api('GET', path)).body).toEqual(created.body);
    const scoped = (await t.createKey({ scopes: ['gas:manage'] })).key;
    expect((await call(scoped, 'GET', '/v1/gas/policies')).status).toBe(200);
    await api('DELETE', path);
  });

  it("another account's policy is absent to it: 404 and nothing changed", async () => {
    const created = await api('POST', '/v1/gas/policies', { name: 'mine', chain: 'ethereum', rules: { max_ops: 1 } });
    const path = `/v1/gas/policies/${created.body.id}`;
    expect((await call(otherKey, 'GET', '/v1/gas/policies')).body).toEqual({ policies: [], page: 1, total: 0 });
    for (const [method, body] of [
      ['GET'],
      ['PATCH', { status: 'paused', name: 'theirs', rules: { max_ops: 1000 } }],
      ['DELETE'],
    ] as const) {
      const answer = await call(otherKey, method, path, body);
      expect(answer.status, method).toBe(404);
      expect(answer.body.error).toMatchObject({ code: 'not_found', status: 404 });
    }
    expect((await api('GET', path)).body).toEqual(created.body);
    const row = await t.database.db
      .selectFrom('gas_policies')
      .selectAll()
      .where('id', '=', created.body.id)
      .executeTakeFirstOrThrow();
    expect(row.deleted_at).toBeNull();
    await api('DELETE', path);
  });

  it('an id that does not exist is 404; one longer than 100 characters is refused as every path parameter is', async () => {
    for (const id of ['gp_none', 'nonsense', 'wh_3vQB7B6MrGQZaxCuFg4oh']) {
      expect((await api('GET', `/v1/gas/policies/${id}`)).status, id).toBe(404);
    }
    const long = await fetch(`${t.url}/v1/gas/policies/gp_${'x'.repeat(100)}`, { headers: { 'x-api-key': key } });
    expect(long.status).toBe(414);
    expect(((await long.json()) as { error: { code: string } }).error.code).toBe('uri_too_long');
  });

  it('paginates newest first (default 25, at most 100) and filters by chain and status', async () => {
    const pager = (await t.createKey()).key;
    const ids: string[] = [];
    for (let index = 0; index < 7; index++) {
      const created = await call(pager, 'POST', '/v1/gas/policies', { name: `p${index}`, chain: 'ethereum', rules: {} });
      ids.push(created.body.id);
    }
    await call(pager, 'PATCH', `/v1/gas/policies/${ids[1]}`, { status: 'paused' });
    await call(pager, 'PATCH', `/v1/gas/policies/${ids[4]}`, { status: 'paused' });

    const all = await call(pager, 'GET', '/v1/gas/policies');
    expect(all.body.total).toBe(7);
    expect(all.body.policies.map((p: { id: string }) => p.id)).toEqual([...ids].reverse());

    const pages = [];
    for (const page of [1, 2, 3, 4]) pages.push(await call(pager, 'GET', `/v1/gas/policies?limit=3&page=${page}`));
    expect(pages.map((p) => p.body.policies.length)).toEqual([3, 3, 1, 0]);
    expect(pages.map((p) => p.body.page)).toEqual([1, 2, 3, 4]);
    expect(pages.every((p) => p.body.total === 7)).toBe(true);
    expect(pages.flatMap((p) => p.body.policies.map((policy: { id: string }) => policy.id))).toEqual([...ids].reverse());

    const paused = await call(pager, 'GET', '/v1/gas/policies?status=paused');
    expect(paused.body.policies.map((p: { id: string }) => p.id)).toEqual([ids[4], ids[1]]);
    expect(paused.body.total).toBe(2);
    expect((await call(pager, 'GET', '/v1/gas/policies?status=active&limit=2')).body).toMatchObject({ total: 5, page: 1 });
    expect((await call(pager, 'GET', '/v1/gas/policies?chain=ethereum')).body.total).toBe(7);
    expect((await call(pager, 'GET', '/v1/gas/policies?chain=polygon')).body).toEqual({ policies: [], page: 1, total: 0 });

    for (const [query, param] of [
      ['limit=101', 'limit'],
      ['limit=0', 'limit'],
      ['page=0', 'page'],
      ['status=deleted', 'status'],
      ['colour=red', 'colour'],
    ]) {
      const answer = await call(pager, 'GET', `/v1/gas/policies?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.message, query).toContain(`'${param}'`);
    }
  });

  it('answers the create example of docs/gas-sponsorship.md as the document shows', async () => {
    const doc = readFileSync(new URL('../../docs/gas-sponsorship.md', import.meta.url), 'utf8');
    const example =
      /curl -s -X POST http:\/\/127\.0\.0\.1:8080\/v1\/gas\/policies [^\n]*-d '(\{[\s\S]*?\})'\n# -> 201\n((?:# [^\n]*\n)+)/.exec(
        doc,
      );
    expect(example, 'the create example and its answer').not.toBeNull();
    const shown = JSON.parse(example![2]!.replace(/^# /gm, ''));
    const created = await api('POST', '/v1/gas/policies', JSON.parse(example![1]!));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      ...shown,
      id: expect.stringMatching(/^gp_/),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    await api('DELETE', `/v1/gas/policies/${created.body.id}`);
  });
});
