import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

const blockNumber = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] };

/** Polls `check` every 25 ms until it returns true or `timeoutMs` passes; returns how long it took, or undefined. */
async function within(timeoutMs: number, check: () => Promise<boolean>): Promise<number | undefined> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await check()) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return undefined;
}

async function errorOf(response: Response): Promise<{ status: number; code?: string; message?: string }> {
  const body = (await response.json()) as { error?: { code: string; message: string } };
  return { status: response.status, code: body.error?.code, message: body.error?.message };
}

/** Two API processes of one deployment (one database): a key change through one reaches the other at once. */
describe('key rotation and key changes across two API processes', () => {
  let a: TestService;
  let b: TestService;
  beforeAll(async () => {
    a = await startTestService();
    b = await startTestService({ sharing: a });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  /** The status of eth_blockNumber with `key` on each process. */
  async function statuses(key: string): Promise<[number, number]> {
    const [onA, onB] = await Promise.all([a.rpc(key, blockNumber), b.rpc(key, blockNumber)]);
    await Promise.all([onA.body?.cancel(), onB.body?.cancel()]);
    return [onA.status, onB.status];
  }

  it('rotation: old and new secrets both work during the grace on both processes, the old one fails after it on both', async () => {
    const { key: oldKey, keyId } = await a.createKey();
    expect(await statuses(oldKey)).toEqual([200, 200]);

    const rotated = await a.admin('POST', `/admin/keys/${keyId}/rotate`, { grace_s: 3 });
    expect(rotated.status).toBe(200);
    const newKey: string = rotated.body.key;
    expect(newKey).toMatch(/^svc_test_/);
    expect(newKey).not.toBe(oldKey);
    expect(rotated.body).toMatchObject({ id: keyId, name: 'test', prefix: newKey.slice(0, rotated.body.prefix.length) });
    const expiresAt = Date.parse(rotated.body.previous_key_expires_at);
    expect(expiresAt - Date.now()).toBeGreaterThan(1_500);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(3_000);

    // During the grace, and long enough after the rotation for B to have heard of it (and cached the old secret with its end).
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(await statuses(oldKey)).toEqual([200, 200]);
    expect(await statuses(newKey)).toEqual([200, 200]);

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now() + 100)));
    for (const service of [a, b]) {
      const refused = await errorOf(await service.rpc(oldKey, blockNumber));
      expect(refused).toEqual({
        status: 401,
        code: 'unauthorized',
        message: `this API key was rotated; its previous secret stopped working at ${rotated.body.previous_key_expires_at}`,
      });
    }
    expect(await statuses(newKey)).toEqual([200, 200]);

    const events = await b.admin('GET', `/admin/keys/${keyId}/events`);
    expect(events.body.events[0]).toMatchObject({
      action: 'rotate',
      actor: 'admin',
      details: { grace_s: 3, previous_key_expires_at: rotated.body.previous_key_expires_at, prefix: rotated.body.prefix },
    });
  });

  it('grace 0: the old secret stops at once on this process and within a second on the other', async () => {
    const { key: oldKey, keyId } = await a.createKey();
    expect(await statuses(oldKey)).toEqual([200, 200]);
    const rotated = await a.admin('POST', `/admin/keys/${keyId}/rotate`, { grace_s: 0 });
    expect(rotated.status).toBe(200);
    expect((await a.rpc(oldKey, blockNumber)).status).toBe(401);
    const tookMs = await within(1_000, async () => (await b.rpc(oldKey, blockNumber)).status === 401);
    expect(tookMs).toBeDefined();
    expect(await statuses(rotated.body.key)).toEqual([200, 200]);
  });

  it('rotating again replaces the earlier rotated-out secret; no body means a grace of 24 hours', async () => {
    const { key: first, keyId } = await a.createKey();
    const second = await a.admin('POST', `/admin/keys/${keyId}/rotate`);
    expect(second.status).toBe(200);
    const graceMs = Date.parse(second.body.previous_key_expires_at) - Date.now();
    expect(graceMs).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(graceMs).toBeLessThanOrEqual(24 * 3600_000);
    expect(await statuses(first)).toEqual([200, 200]);
    const third = await b.admin('POST', `/admin/keys/${keyId}/rotate`, { grace_s: 600 });
    expect(third.status).toBe(200);
    await within(1_000, async () => (await a.rpc(first, blockNumber)).status === 401);
    for (const service of [a, b]) {
      expect(await errorOf(await service.rpc(first, blockNumber))).toMatchObject({ status: 401, message: 'invalid API key' });
    }
    expect(await statuses(second.body.key)).toEqual([200, 200]);
    expect(await statuses(third.body.key)).toEqual([200, 200]);
  });

  it('a change made through one process (scopes, revocation) takes effect in the other within a second', async () => {
    const { key, keyId } = await a.createKey();
    expect(await statuses(key)).toEqual([200, 200]);

    const patched = await a.admin('PATCH', `/admin/keys/${keyId}`, { scopes: ['data:read'] });
    expect(patched.status).toBe(200);
    const narrowedMs = await within(1_000, async () => (await b.rpc(key, blockNumber)).status === 403);
    expect(narrowedMs).toBeDefined();

    const widened = await b.admin('PATCH', `/admin/keys/${keyId}`, { scopes: ['rpc:read'] });
    expect(widened.status).toBe(200);
    expect(await within(1_000, async () => (await a.rpc(key, blockNumber)).status === 200)).toBeDefined();

    expect((await a.admin('DELETE', `/admin/keys/${keyId}`)).status).toBe(200);
    expect(await within(1_000, async () => (await b.rpc(key, blockNumber)).status === 401)).toBeDefined();
    expect(await errorOf(await b.rpc(key, blockNumber))).toMatchObject({ status: 401, message: 'this API key has been revoked' });
  });
});
