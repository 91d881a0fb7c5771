import { entryPoint07Address } from 'viem/account-abstraction';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { restComputeUnits } from '../../src/limits/compute-units.ts';
import { devnetChain, startTestService, type TestService } from '../support/service.ts';
import { bundlerUrlOf } from './support.ts';

const sender = '0x000000000000000000000000000000000000a77f';
const bogusOp = { sender, nonce: '0x0', callData: '0x', signature: '0x' };

/** Bundler calls are charged one by one: a batch of 10 simulations costs 10 simulations, not one request. */
describe('bundler endpoint: compute units per call', () => {
  let service: TestService;
  let url: string;
  beforeAll(async () => {
    service = await startTestService({
      settings: { bundler_keys: devnetExecutorKeys[0] },
      chainsFor: (anvilUrl) => [devnetChain(anvilUrl, { bundler: { enabled: true } })],
    });
    url = bundlerUrlOf(service.url);
  });
  afterAll(() => service?.stop());

  const post = async (key: string, body: unknown) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  };
  const batchOf = (count: number, method: string, params: unknown[]) =>
    Array.from({ length: count }, (_, id) => ({ jsonrpc: '2.0', id, method, params }));
  /** CU spent by one request of a fresh growth account (2,000 CU/s): the first of its window. */
  const costOf = async (body: unknown) => {
    const { key } = await service.createKey({ plan: 'growth' });
    const answer = await post(key, body);
    expect(answer.status).toBe(200);
    return 2000 - Number(answer.headers.get('x-ratelimit-remaining-cu'));
  };

  it('10 eth_estimateUserOperationGas cost 10 x 50 CU; one eth_sendUserOperation 100; one eth_chainId 1', async () => {
    expect(await costOf(batchOf(10, 'eth_estimateUserOperationGas', [bogusOp, entryPoint07Address]))).toBe(500);
    expect(await costOf({ jsonrpc: '2.0', id: 1, method: 'eth_sendUserOperation', params: [bogusOp, entryPoint07Address] })).toBe(
      100,
    );
    expect(await costOf({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })).toBe(1);
  });

  it("pm_* calls cost the sponsor route's price each", async () => {
    const price = restComputeUnits['gas.sponsor']!;
    expect(await costOf(batchOf(10, 'pm_getPaymasterData', [bogusOp, entryPoint07Address, '0x7a69', {}]))).toBe(10 * price);
    expect(await costOf(batchOf(3, 'pm_getPaymasterStubData', [bogusOp, entryPoint07Address, '0x7a69', {}]))).toBe(3 * price);
  });

  it('calls refused before running cost nothing; a batch over the per-second budget is 400 naming it', async () => {
    const { key: readOnly } = await service.createKey({ plan: 'growth', scopes: ['rpc:read'] });
    const refused = await post(readOnly, batchOf(5, 'eth_sendUserOperation', [bogusOp, entryPoint07Address]));
    expect(refused.body.map((a: { error: { code: number } }) => a.error.code)).toEqual([-32010, -32010, -32010, -32010, -32010]);
    expect(refused.headers.get('x-ratelimit-remaining-cu')).toBe('2000');

    const { key: free } = await service.createKey({ plan: 'free' });
    const tooCostly = await post(free, batchOf(50, 'eth_estimateUserOperationGas', [bogusOp, entryPoint07Address]));
    expect(tooCostly.status).toBe(400);
    expect(tooCostly.headers.get('retry-after')).toBeNull();
    expect(tooCostly.body.error.message).toMatch(
      /^invalid parameter 'batch': this request costs 2500 compute units, more than the 200/,
    );
  });

  it("a key's own CU budget under its account's: the calls count against both, and the key's refuses first", async () => {
    const { key, keyId } = await service.createKey({ plan: 'growth' });
    expect((await service.admin('PATCH', `/admin/keys/${keyId}`, { limits: { cups: 120 } })).status).toBe(200);
    const estimates = batchOf(2, 'eth_estimateUserOperationGas', [bogusOp, entryPoint07Address]);
    const first = await post(key, estimates);
    expect(first.status).toBe(200);
    // The key's 120 CU/s has fewer left (20) than the account's 2,000 (1,900): the headers show the key's.
    expect([first.headers.get('x-ratelimit-limit-cu'), first.headers.get('x-ratelimit-remaining-cu')]).toEqual(['120', '20']);
    const tooCostly = await post(key, batchOf(3, 'eth_estimateUserOperationGas', [bogusOp, entryPoint07Address]));
    expect(tooCostly.status).toBe(400);
    expect(tooCostly.body.error.message).toMatch(/costs 150 compute units, more than the 120 this key allows per second/);
  });

  it('a body that is not JSON still counts as one request, with the limit headers', async () => {
    const { key } = await service.createKey({ plan: 'free' });
    const answer = await post(key, '{"jsonrpc":');
    expect(answer.status).toBe(400);
    expect(answer.headers.get('x-ratelimit-remaining')).toBe('9');
  });

  it('hostile bodies: params nested 50,000 deep, a body of nested arrays, a 100 KiB method: never a 5xx, nor a 100 KiB message', async () => {
    const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
    for (const body of [
      `{"jsonrpc":"2.0","id":1,"method":"eth_estimateUserOperationGas","params":${deep}}`,
      `{"jsonrpc":"2.0","id":1,"method":"eth_sendUserOperation","params":[${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)},"0x"]}`,
      deep,
      `{"jsonrpc":"2.0","id":1,"method":"${'x'.repeat(100 * 1024)}","params":[]}`,
      `{"jsonrpc":"2.0","id":{"__proto__":{"x":1}},"method":"eth_chainId","constructor":{"prototype":{}}}`,
    ]) {
      const { key } = await service.createKey();
      const answer = await post(key, body);
      expect(answer.status, body.slice(0, 40)).toBeLessThan(500);
      expect(JSON.stringify(answer.body).length).toBeLessThan(4000);
    }
  });

  it('debug_bundler_* on a devnet need rpc:write: an rpc:read or bundler:send key gets -32010', async () => {
    const call = { jsonrpc: '2.0', id: 1, method: 'debug_bundler_setBundlingMode', params: ['auto'] };
    for (const scopes of [['rpc:read'], ['bundler:send']]) {
      const { key } = await service.createKey({ scopes });
      const answer = await post(key, call);
      expect(answer.body.error.code).toBe(-32010);
      expect(answer.body.error.message).toMatch(/rpc:write/);
    }
    const { key: writer } = await service.createKey({ scopes: ['rpc:write'] });
    expect((await post(writer, call)).body.result).toBe('ok');
  });
});
