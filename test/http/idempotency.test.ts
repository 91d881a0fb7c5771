import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { eventually } from '../support/cli.ts';
import type { OpenApiDocument } from '../support/openapi.ts';
import { startTestService, type TestService } from '../support/service.ts';

interface Answer {
  status: number;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
  body: any;
  headers: Headers;
}

describe('Idempotency-Key on the routes that create', () => {
  let first: TestService;
  let second: TestService;
  let key: string;
  let otherKey: string;
  const encryptionKey = randomBytes(32).toString('hex');

  /** A POST with a JSON body (a string is sent as it is), to `base` (one of the two API processes). */
  async function post(
    base: string,
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
    apiKey: string | undefined = key,
  ): Promise<Answer> {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}), ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text), headers: response.headers };
  }
  const admin = (path: string, body: unknown, headers: Record<string, string>) =>
    post(first.url, path, body, { authorization: `Bearer ${first.adminToken}`, ...headers }, undefined);

  /** A webhook body with a URL of its own, so its rows can be counted. */
  const webhookBody = () => ({
    url: `http://127.0.0.1:9/${randomUUID()}`,
    chain: 'ethereum',
    event_type: 'new_block',
  });
  const webhooksAt = async (url: string) =>
    Number(
      (
        await first.database.db
          .selectFrom('webhooks')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('url', '=', url)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const idempotencyRows = (idem: string) =>
    sql<{ state: string; body: string | null }>`select state, body from idempotency_keys where key = ${idem}`
      .execute(first.database.db)
      .then((result) => result.rows);

  /** The 409 of a request whose twin still runs, or the first answer (fresh or replayed). */
  function expectOneAnswer(answers: Answer[], created: Answer) {
    for (const answer of answers) {
      if (answer.status === 409) {
        expect(answer.body.error.code).toBe('idempotency_key_in_use');
        expect(answer.headers.get('retry-after')).toBe('1');
      } else {
        expect(answer.status).toBe(201);
        expect(answer.text).toBe(created.text);
      }
    }
  }

  beforeAll(async () => {
    first = await startTestService({ settings: { encryption_key: encryptionKey } });
    second = await startTestService({ sharing: first, settings: { encryption_key: encryptionKey } });
    key = (await first.createKey()).key;
    otherKey = (await first.createKey()).key;
  }, 120_000);
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
  });

  it('three identical concurrent POSTs with one key create one webhook; every answer is its answer or a 409 to retry', async () => {
    const body = webhookBody();
    const idem = randomUUID();
    const answers = await Promise.all([1, 2, 3].map(() => post(first.url, '/v1/webhooks', body, { 'idempotency-key': idem })));
    expect(await webhooksAt(body.url)).toBe(1);
    const created = answers.find((answer) => answer.status === 201 && answer.headers.get('idempotent-replayed') === null);
    expect(created, JSON.stringify(answers.map((answer) => answer.status))).toBeDefined();
    expectOneAnswer(answers, created!);

    const retried = await post(first.url, '/v1/webhooks', body, { 'idempotency-key': idem });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.text).toBe(created!.text);
    expect(retried.body.signing_secret).toMatch(/^whsec_/);
    // Without a key, each POST creates.
    await post(first.url, '/v1/webhooks', body);
    expect(await webhooksAt(body.url)).toBe(2);
  });

  it('a retry gets the first status and body with Idempotent-Replayed: true; another body or path with the key is a 400 naming it', async () => {
    const body = webhookBody();
    const idem = randomUUID();
    const created = await post(first.url, '/v1/webhooks', body, { 'idempotency-key': idem });
    expect(created.status).toBe(201);
    expect(created.headers.get('idempotent-replayed')).toBeNull();

    // The same JSON with its members in another order and other spacing is the same request.
    const reordered = `{ "event_type": "new_block", "chain": "ethereum",\n "url": ${JSON.stringify(body.url)} }`;
    const replayed = await post(first.url, '/v1/webhooks', reordered, { 'idempotency-key': idem });
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.text).toBe(created.text);

    const otherBody = await post(first.url, '/v1/webhooks', { ...body, event_type: 'log' }, { 'idempotency-key': idem });
    expect(otherBody.status).toBe(400);
    expect(otherBody.body.error.code).toBe('invalid_request');
    expect(otherBody.body.error.message).toContain("'Idempotency-Key'");
    const otherPath = await post(
      first.url,
      '/v1/gas/policies',
      { name: 'p', chain: 'ethereum', rules: {} },
      { 'idempotency-key': idem },
    );
    expect(otherPath.status).toBe(400);
    expect(otherPath.body.error.message).toContain("'Idempotency-Key'");
    expect(await webhooksAt(body.url)).toBe(1);
  });

  it('an empty key or one over 255 characters is a 400 naming the header; 255 is accepted', async () => {
    for (const bad of ['', 'k'.repeat(256)]) {
      const body = webhookBody();
      const answer = await post(first.url, '/v1/webhooks', body, { 'idempotency-key': bad });
      expect(answer.status, bad).toBe(400);
      expect(answer.body.error.message).toContain("'Idempotency-Key'");
      expect(await webhooksAt(body.url)).toBe(0);
    }
    const longest = await post(first.url, '/v1/webhooks', webhookBody(), { 'idempotency-key': 'k'.repeat(255) });
    expect(longest.status).toBe(201);
  });

  it('the same request while the first still runs is a 409 with Retry-After; once it answered, the retry replays it', async () => {
    const body = webhookBody();
    const idem = randomUUID();
    let running: Promise<Answer> | undefined;
    // The create's insert waits behind this lock: the first request stays running while the test looks.
    await first.database.db.transaction().execute(async (trx) => {
      await sql`lock table webhooks in exclusive mode`.execute(trx);
      running = post(first.url, '/v1/webhooks', body, { 'idempotency-key': idem });
      await eventually(async () => ((await idempotencyRows(idem))[0]?.state === 'running' ? true : undefined), {
        timeoutMs: 5_000,
        intervalMs: 20,
        what: 'the first request to claim its key',
      });
      const overtaking = await post(second.url, '/v1/webhooks', body, { 'idempotency-key': idem });
      expect(overtaking.status).toBe(409);
      expect(overtaking.body.error).toMatchObject({ code: 'idempotency_key_in_use', status: 409 });
      expect(overtaking.headers.get('retry-after')).toBe('1');
    });
    const created = await running!;
    expect(created.status).toBe(201);
    const retried = await post(first.url, '/v1/webhooks', body, { 'idempotency-key': idem });
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.text).toBe(created.text);
    expect(await webhooksAt(body.url)).toBe(1);
  });

  it('holds across two API processes on one database, in turn and at once', async () => {
    const body = webhookBody();
    const idem = randomUUID();
    const created = await post(first.url, '/v1/webhooks', body, { 'idempotency-key': idem });
    expect(created.status).toBe(201);
    const elsewhere = await post(second.url, '/v1/webhooks', body, { 'idempotency-key': idem });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.headers.get('idempotent-replayed')).toBe('true');
    expect(elsewhere.text).toBe(created.text);

    const together = webhookBody();
    const idemTogether = randomUUID();
    const answers = await Promise.all(
      [first.url, second.url, first.url, second.url].map((base) =>
        post(base, '/v1/webhooks', together, { 'idempotency-key': idemTogether }),
      ),
    );
    expect(await webhooksAt(together.url)).toBe(1);
    const fresh = answers.find((answer) => answer.status === 201 && answer.headers.get('idempotent-replayed') === null);
    expect(fresh).toBeDefined();
    expectOneAnswer(answers, fresh!);
  });

  it('keys are per account: another account with the same key and body creates its own', async () => {
    const body = webhookBody();
    const idem = randomUUID();
    const mine = await post(first.url, '/v1/webhooks', body, { 'idempotency-key': idem });
    const theirs = await post(first.url, '/v1/webhooks', body, { 'idempotency-key': idem }, otherKey);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(await webhooksAt(body.url)).toBe(2);
  });

  it('admin accounts and keys: a retry returns the same account and the same key, which is stored encrypted', async () => {
    const idem = randomUUID();
    const account = await admin('/admin/accounts', { name: 'idempotent', plan: 'free' }, { 'idempotency-key': idem });
    expect(account.status).toBe(201);
    const again = await admin('/admin/accounts', { name: 'idempotent', plan: 'free' }, { 'idempotency-key': idem });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(account.body.id);

    const keyIdem = randomUUID();
    const path = `/admin/accounts/${account.body.id}/keys`;
    const created = await admin(path, { name: 'k', environment: 'test' }, { 'idempotency-key': keyIdem });
    expect(created.status).toBe(201);
    const retried = await admin(path, { name: 'k', environment: 'test' }, { 'idempotency-key': keyIdem });
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body.key).toBe(created.body.key);
    const listed = await first.admin('GET', path);
    expect(listed.body.keys).toHaveLength(1);

    const [row] = await idempotencyRows(keyIdem);
    expect(row?.state).toBe('done');
    expect(row?.body).not.toContain(created.body.key);
    expect(row?.body).not.toContain(created.body.id);
    // The admin token is kept only as its hash.
    const owners = await sql<{ owner: string }>`select owner from idempotency_keys where key = ${keyIdem}`.execute(
      first.database.db,
    );
    expect(owners.rows[0]?.owner).toMatch(/^admin:[0-9a-f]{64}$/);
  });

  it('a request refused before it ran leaves the key free; an answer that ran (4xx) is kept; a 5xx frees the key', async () => {
    // Validation refuses the body: the corrected request can use the key.
    const idem = randomUUID();
    const invalid = await post(first.url, '/v1/gas/policies', { chain: 'ethereum', rules: {} }, { 'idempotency-key': idem });
    expect(invalid.status).toBe(400);
    expect(await idempotencyRows(idem)).toEqual([]);
    const policy = { name: 'p', chain: 'ethereum', rules: {} };
    const created = await post(first.url, '/v1/gas/policies', policy, { 'idempotency-key': idem });
    expect(created.status).toBe(201);

    // A handler's refusal ran: it is the answer.
    const refusedIdem = randomUUID();
    const unknownChain = { name: 'p', chain: 'nosuchchain', rules: {} };
    const refused = await post(first.url, '/v1/gas/policies', unknownChain, { 'idempotency-key': refusedIdem });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    const refusedAgain = await post(first.url, '/v1/gas/policies', unknownChain, { 'idempotency-key': refusedIdem });
    expect(refusedAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(refusedAgain.text).toBe(refused.text);

    // No factory on this chain yet: 503, and the key is free for the retry, which runs once it is there.
    const walletIdem = randomUUID();
    const wallet = { owner: privateKeyToAccount(generatePrivateKey()).address, chain: 'ethereum' };
    const unavailable = await post(first.url, '/v1/wallets/create', wallet, { 'idempotency-key': walletIdem });
    expect(unavailable.status).toBe(503);
    expect(await idempotencyRows(walletIdem)).toEqual([]);
    await installErc4337Contracts(first.anvil.url);
    const made = await post(first.url, '/v1/wallets/create', wallet, { 'idempotency-key': walletIdem });
    expect(made.status).toBe(201);
    expect(made.headers.get('idempotent-replayed')).toBeNull();
    const replayed = await post(second.url, '/v1/wallets/create', wallet, { 'idempotency-key': walletIdem });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.text).toBe(made.text);
  });

  it('a body nested thousands of levels deep is a 400 naming where, with or without a key, never a 500', async () => {
    const deep = `{"url":"http://127.0.0.1:9/deep","chain":"ethereum","event_type":"new_block","config":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    for (const headers of [{ 'idempotency-key': randomUUID() }, {}] as Record<string, string>[]) {
      const answer = await post(first.url, '/v1/webhooks', deep, headers);
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toMatch(/^invalid body 'config(\.a)+…?': is nested more than 64 levels deep$/);
    }
  });

  it('the OpenAPI document lists the header on the routes that create, and only there', async () => {
    const doc = (await (await fetch(`${first.url}/v1/openapi.json`)).json()) as OpenApiDocument;
    const hasHeader = (path: string, method: string) =>
      (doc.paths[path]?.[method]?.parameters ?? []).some((p) => p.in === 'header' && p.name === 'Idempotency-Key');
    for (const path of [
      '/v1/webhooks',
      '/v1/wallets/create',
      '/v1/gas/policies',
      '/v1/gas/sponsor',
      '/admin/accounts',
      '/admin/accounts/{id}/keys',
    ]) {
      expect(hasHeader(path, 'post'), path).toBe(true);
    }
    expect(hasHeader('/v1/webhooks', 'get')).toBe(false);
    expect(hasHeader('/v1/webhooks/{id}/test', 'post')).toBe(false);
  });
});
