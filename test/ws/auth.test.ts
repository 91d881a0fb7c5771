import { describe, expect, it } from 'vitest';
import { upgrade } from './support/upgrade.ts';
import { connectRaw } from './support/ws-client.ts';
import { useWsServiceWithKey, type WsTestService } from './support/ws-service.ts';

describe('WebSocket authentication happens before the upgrade', () => {
  let s: WsTestService;
  let key: string;
  useWsServiceWithKey((started) => ({ s, key } = started));

  it('upgrades with ?apiKey=, X-API-Key or Bearer', async () => {
    expect((await upgrade(s.wsUrl(key))).status).toBe(101);
    const base = s.wsUrl(key).split('?')[0]!;
    expect((await upgrade(base, { 'x-api-key': key })).status).toBe(101);
    expect((await upgrade(base, { authorization: `Bearer ${key}` })).status).toBe(101);
    const client = await connectRaw(s.wsUrl(key));
    expect((await client.call('eth_chainId')).result).toBe('0x7a69');
    client.close();
  });

  it.each([
    ['no key', (base: string) => base, /missing API key/],
    ['a malformed key', (base: string) => `${base}?apiKey=nope`, /malformed API key/],
    ['an unknown key', (base: string) => `${base}?apiKey=svc_test_${'1'.repeat(44)}`, /invalid API key/],
  ])('401 for %s, with the REST error body', async (_name, build, message) => {
    const answer = await upgrade(build(s.wsUrl(key).split('?')[0]!));
    expect(answer.upgraded).toBe(false);
    expect(answer.status).toBe(401);
    const body = JSON.parse(answer.body);
    expect(body.error).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(body.error.message).toMatch(message);
  });

  it('401 for a revoked key', async () => {
    const created = await s.t.createKey();
    expect((await s.t.admin('DELETE', `/admin/keys/${created.keyId}`)).status).toBeLessThan(300);
    const answer = await upgrade(s.wsUrl(created.key));
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).error.message).toMatch(/revoked/);
  });

  it('403 without rpc:read, or with a test key on a mainnet', async () => {
    const dataOnly = (await s.t.createKey({ scopes: ['data:read'] })).key;
    const noScope = await upgrade(s.wsUrl(dataOnly));
    expect(noScope.status).toBe(403);
    expect(JSON.parse(noScope.body).error).toMatchObject({ code: 'forbidden', status: 403 });
    expect(JSON.parse(noScope.body).error.message).toMatch(/rpc:read/);

    const wrongEnv = await upgrade(s.wsUrl(key, 'ethereum/mainnet'));
    expect(wrongEnv.status).toBe(403);
    expect(JSON.parse(wrongEnv.body).error.message).toMatch(/test keys .* cannot use ethereum\/mainnet/);
  });

  it('404 for an unknown chain, network or path, naming what is configured', async () => {
    const chain = await upgrade(s.wsUrl(key, 'bitcoin/mainnet'));
    expect(chain.status).toBe(404);
    expect(JSON.parse(chain.body).error).toMatchObject({ code: 'not_found', status: 404 });
    expect(JSON.parse(chain.body).error.message).toMatch(/unknown chain 'bitcoin'.*ethereum/);
    const network = await upgrade(s.wsUrl(key, 'ethereum/goerli'));
    expect(JSON.parse(network.body).error.message).toMatch(/no network 'goerli'.*devnet/);
    const path = await upgrade(`${s.t.url}/v1/nope?apiKey=${key}`);
    expect(path.status).toBe(404);
  });

  it('the viem and raw ws clients see the refusal as a failed connection', async () => {
    await expect(connectRaw(s.wsUrl('svc_test_nope'))).rejects.toThrow(/401/);
  });
});
