import { createPublicClient, webSocket } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createSigningKey, listed, restrictKey, type SigningKey } from '../support/key-restrictions.ts';
import { startWsTestService, type WsTestService } from '../ws/support/ws-service.ts';

/** Opens a WebSocket as a browser would (its Origin) or a backend (headers); the refusal's status and message if refused. */
function open(url: string, options: { origin?: string; headers?: Record<string, string> } = {}) {
  return new Promise<{ status: number; message: string }>((resolve, reject) => {
    const ws = new WebSocket(url, { ...options, handshakeTimeout: 10_000 });
    ws.once('open', () => {
      ws.close();
      resolve({ status: 101, message: '' });
    });
    ws.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, message: JSON.parse(body).error.message }));
    });
    ws.once('error', reject);
  });
}

describe("a key's origins, addresses and signed requests on WebSocket upgrades", () => {
  let s: WsTestService;
  let signer: SigningKey;
  beforeAll(async () => {
    s = await startWsTestService();
    signer = await createSigningKey('ws-1', 'ES256');
  });
  afterAll(() => s?.stop());

  const keyWith = async (restrictions: Parameters<typeof restrictKey>[2]) => {
    const created = await s.t.createKey();
    await restrictKey(s.t, created.keyId, restrictions);
    return created.key;
  };

  it('origins: the listed origin opens, another or none is 403 naming it', async () => {
    const key = await keyWith({ origins: ['https://app.example.com'] });
    expect(await open(s.wsUrl(key), { origin: 'https://app.example.com' })).toEqual({ status: 101, message: '' });
    expect(await open(s.wsUrl(key), { origin: 'https://evil.example' })).toEqual({
      status: 403,
      message: "refused by this API key's restrictions.origins: the origin 'https://evil.example' is not listed",
    });
    expect(await open(s.wsUrl(key))).toEqual({
      status: 403,
      message: "refused by this API key's restrictions.origins: the request has no Origin header",
    });
  });

  it('ips: viem webSocket() from a listed address reads; from elsewhere 403 naming the address', async () => {
    const allowed = await keyWith({ ips: ['127.0.0.0/8'] });
    const client = createPublicClient({
      chain: foundry,
      transport: webSocket(s.wsUrl(allowed), { retryCount: 0, timeout: 10_000 }),
    });
    expect(await client.getChainId()).toBe(31337);
    await (await client.transport.getRpcClient()).close();
    const elsewhere = await keyWith({ ips: ['2001:db8::/32'] });
    expect(await open(s.wsUrl(elsewhere), { headers: { 'x-forwarded-for': '2001:db8::1' } })).toEqual({
      status: 403,
      message: "refused by this API key's restrictions.ips: the address 127.0.0.1 is not listed",
    });
  });

  it('jwt: a Bearer JWT on the upgrade request opens; none is 401', async () => {
    const key = await keyWith({ jwt: { required: true, public_keys: [listed(signer)] } });
    const token = await signer.sign();
    expect(await open(s.wsUrl(key), { headers: { authorization: `Bearer ${token}` } })).toEqual({ status: 101, message: '' });
    const refused = await open(s.wsUrl(key));
    expect(refused.status).toBe(401);
    expect(refused.message).toMatch(/requires signed requests/);
  });
});
