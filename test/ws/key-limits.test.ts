import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withinOneSecond } from '../support/one-second.ts';
import { upgrade } from './support/upgrade.ts';
import { connectRaw } from './support/ws-client.ts';
import { startWsTestService, type WsTestService } from './support/ws-service.ts';

describe("a key's own limits over the WebSocket", () => {
  let s: WsTestService;
  beforeAll(async () => {
    s = await startWsTestService();
  });
  afterAll(() => s?.stop());

  it('opening counts as a request and each message as one: past the key’s 3 rps a message gets -32005 naming the key, an upgrade 429', async () => {
    const { key, keyId } = await s.t.createKey({ plan: 'enterprise' });
    expect((await s.t.admin('PATCH', `/admin/keys/${keyId}`, { limits: { rps: 3 } })).status).toBe(200);
    const client = await connectRaw(s.wsUrl(key)); // warms the key cache; its own second
    client.close();
    const { answers, refusedUpgrade } = await withinOneSecond(async () => {
      const socket = await connectRaw(s.wsUrl(key)); // 1
      const calls = [await socket.call('eth_chainId'), await socket.call('eth_chainId'), await socket.call('eth_chainId')]; // 2, 3, 4
      const refused = await upgrade(s.wsUrl(key)); // 5
      socket.close();
      return { answers: calls, refusedUpgrade: refused };
    });
    expect(answers[0].result).toBe('0x7a69');
    expect(answers[1].result).toBe('0x7a69');
    expect(answers[2].error).toEqual({
      code: -32005,
      message: "rate limit exceeded: this key's requests per second; retry after 1 s",
      data: { limit: 'rps', retry_after_s: 1, budget: 'key' },
    });
    expect(refusedUpgrade.status).toBe(429);
    expect(JSON.parse(refusedUpgrade.body).error.message).toBe(
      "rate limit exceeded: this key's requests per second; retry after 1 s",
    );
  });
});
