import { createSmartAccountClient } from 'permissionless';
import { toSimpleSmartAccount } from 'permissionless/accounts';
import { createPublicClient, http, type PublicClient, parseEther } from 'viem';
import { entryPoint06Address, entryPoint07Address } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { devnetChain, startTestService, type TestService } from '../support/service.ts';
import { bundlerUrlOf, executorAddress, fund, postBundler } from './support.ts';

/**
 * One URL is enough: the bundler's endpoint also answers the chain's own JSON-RPC, as /v1/rpc answers
 * it (the same allowlist, scopes, compute units and cache), alone or in batches with bundler calls.
 */
describe('the bundler endpoint answers the chain’s JSON-RPC too', () => {
  let service: TestService;
  let bundlerUrl: string;
  let rpcUrl: string;
  let key: string;
  beforeAll(async () => {
    service = await startTestService({
      settings: { bundler_keys: devnetExecutorKeys[0] },
      chainsFor: (anvilUrl) => [devnetChain(anvilUrl, { bundler: { enabled: true } })],
    });
    await installErc4337Contracts(service.anvil.url);
    bundlerUrl = bundlerUrlOf(service.url);
    rpcUrl = `${service.url}/v1/rpc/ethereum/devnet`;
    key = (await service.createKey()).key;
  }, 120_000);
  afterAll(() => service?.stop());

  const call = (id: number, method: string, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params });

  it.each([
    ['0.7', entryPoint07Address],
    ['0.6', entryPoint06Address],
  ] as const)(
    'v%s: a permissionless smart account client given only the bundler URL (its public client too) sends an op that lands',
    async (version, entryPointAddress) => {
      const transport = http(bundlerUrl, { fetchOptions: { headers: { 'x-api-key': key } }, retryCount: 0 });
      const publicClient = createPublicClient({ chain: foundry, transport }) as PublicClient;
      // Defaults throughout, as a new user writes it: no nonce key, no fee function, no other URL.
      const account = await toSimpleSmartAccount({
        client: publicClient,
        owner: privateKeyToAccount(generatePrivateKey()),
        entryPoint: { address: entryPointAddress, version },
      });
      await fund(service.anvil.url, [account.address], parseEther('1'));
      const client = createSmartAccountClient({ account, chain: foundry, bundlerTransport: transport, pollingInterval: 100 });
      const recipient = privateKeyToAccount(generatePrivateKey()).address;
      const hash = await client.sendTransaction({ to: recipient, value: 1234n });
      expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await publicClient.getBalance({ address: recipient })).toBe(1234n);
      expect(await publicClient.getCode({ address: account.address })).toMatch(/^0x[0-9a-f]+$/);
    },
  );

  it('a batch mixes chain and bundler calls, in order, each answered as its own endpoint answers it', async () => {
    const { status, body } = await postBundler(bundlerUrl, key, [
      call(1, 'eth_chainId'),
      call(2, 'eth_blockNumber'),
      call(3, 'eth_supportedEntryPoints'),
      call(4, 'eth_getBalance', [executorAddress, 'latest']),
      call(5, 'eth_getUserOperationReceipt', [`0x${'ab'.repeat(32)}`]),
      call(6, 'eth_feeHistory', ['0x2', 'latest', [50]]),
    ]);
    expect(status).toBe(200);
    expect(body.map((answer) => answer.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(body[0]!.result).toBe('0x7a69');
    expect(body[2]!.result).toContain(entryPoint07Address);
    expect(body[4]!.result).toBeNull();
    expect(body[5]!.result).toHaveProperty('baseFeePerGas');
    const direct = await postBundler(rpcUrl, key, [
      call(2, 'eth_blockNumber'),
      call(4, 'eth_getBalance', [executorAddress, 'latest']),
    ]);
    expect([body[1], body[3]]).toEqual(direct.body);
  });

  it('scopes as on /v1/rpc: an rpc:read key reads (not sends); a bundler:send key sends (not reads)', async () => {
    const { key: readOnly } = await service.createKey({ scopes: ['rpc:read'] });
    const read = await postBundler(bundlerUrl, readOnly, [
      call(1, 'eth_getCode', [entryPoint07Address, 'latest']),
      call(2, 'eth_sendUserOperation', [{}, entryPoint07Address]),
      call(3, 'eth_sendRawTransaction', ['0x00']),
    ]);
    expect(read.body[0]!.result).toMatch(/^0x[0-9a-f]{100,}$/);
    expect(read.body[1]!.error?.code).toBe(-32010);
    const writeRefusedOnRpc = await postBundler(rpcUrl, readOnly, [call(3, 'eth_sendRawTransaction', ['0x00'])]);
    expect([read.body[2]]).toEqual(writeRefusedOnRpc.body);
    expect(read.body[2]!.error).toEqual({
      code: -32010,
      message: "this API key lacks the scope 'rpc:write' needed for eth_sendRawTransaction",
    });

    const { key: sendOnly } = await service.createKey({ scopes: ['bundler:send'] });
    const single = await postBundler(bundlerUrl, sendOnly, call(7, 'eth_getBalance', [entryPoint07Address, 'latest']));
    expect(single.status).toBe(200);
    expect(single.body.error).toEqual({
      code: -32010,
      message: "this API key lacks the scope 'rpc:read' needed for eth_getBalance",
    });
    expect((await postBundler(bundlerUrl, sendOnly, call(8, 'eth_supportedEntryPoints'))).body.result).toHaveLength(3);
  });

  it('a method outside the proxy’s allowlist gets the same error as on /v1/rpc; an unknown pimlico_ method is the bundler’s', async () => {
    for (const method of ['engine_getPayloadV3', 'foo_bar']) {
      const onBundler = await postBundler(bundlerUrl, key, call(9, method, []));
      const onRpc = await postBundler(rpcUrl, key, call(9, method, []));
      expect(onBundler.status).toBe(200);
      expect(onBundler.body).toEqual(onRpc.body);
      expect(onBundler.body.error).toEqual({
        code: -32601,
        message: `the method '${method}' is not available on ethereum/devnet`,
      });
    }
    const pimlico = await postBundler(bundlerUrl, key, call(10, 'pimlico_noSuchMethod'));
    expect(pimlico.body.error).toMatchObject({ code: -32601, message: "the bundler has no method 'pimlico_noSuchMethod'" });
  });

  it('compute units are charged as on /v1/rpc, call by call', async () => {
    const calls = [
      call(1, 'eth_blockNumber'),
      call(2, 'eth_getBalance', [entryPoint07Address, 'latest']),
      call(3, 'eth_getStorageAt', [entryPoint07Address, '0x0', 'latest']),
      call(4, 'eth_getStorageAt', [entryPoint07Address, '0x0', '0x1']),
      call(5, 'eth_call', [{ to: entryPoint07Address, data: '0x' }, 'latest']),
      call(6, 'eth_feeHistory', ['0x2', 'latest', [50]]),
    ];
    const costOn = async (url: string, body: unknown) => {
      const { key: fresh } = await service.createKey({ plan: 'growth' });
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': fresh },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
      expect(response.status).toBe(200);
      return 2000 - Number(response.headers.get('x-ratelimit-remaining-cu'));
    };
    const onRpc = await costOn(rpcUrl, calls);
    expect(onRpc).toBe(1 + 5 + 5 + 20 + 10 + 10);
    expect(await costOn(bundlerUrl, calls)).toBe(onRpc);
    // With a bundler call beside them: its own price (eth_supportedEntryPoints 1) is added.
    expect(await costOn(bundlerUrl, [...calls, call(7, 'eth_supportedEntryPoints')])).toBe(onRpc + 1);
  });

  it('goes through the proxy’s cache: the second net_version is a hit', async () => {
    const hits = async () => {
      const text = await service.service.ctx.metrics.registry.getSingleMetricAsString('blockyard_rpc_cache_hits_total');
      return text
        .split('\n')
        .filter((line) => line.startsWith('blockyard_rpc_cache_hits_total{'))
        .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
    };
    const before = await hits();
    const first = await postBundler(bundlerUrl, key, call(1, 'net_version'));
    const second = await postBundler(bundlerUrl, key, call(2, 'net_version'));
    expect(first.body.result).toBe('31337');
    expect(second.body).toEqual({ jsonrpc: '2.0', id: 2, result: '31337' });
    expect(await hits()).toBeGreaterThan(before);
  });

  it('a notification of a chain method gets no answer (204), as on /v1/rpc', async () => {
    const response = await fetch(bundlerUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'eth_blockNumber', params: [] }),
      signal: AbortSignal.timeout(15_000),
    });
    expect(response.status).toBe(204);
  });

  // JSON-RPC 2.0: "The Server MUST NOT reply to a Notification, including those that are within a
  // batch request." The bundler's own methods were answered with id null; an object id was taken too.
  it("a notification of the bundler's own methods gets no answer either; an id of the wrong type is -32600", async () => {
    const post = (body: unknown) =>
      fetch(bundlerUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
    const alone = await post({ jsonrpc: '2.0', method: 'eth_supportedEntryPoints', params: [] });
    expect(alone.status).toBe(204);
    const mixed = await post([
      { jsonrpc: '2.0', method: 'eth_chainId' },
      { jsonrpc: '2.0', id: 5, method: 'eth_chainId' },
      { jsonrpc: '2.0', method: 'eth_getUserOperationReceipt', params: ['0x12'] },
    ]);
    expect(await mixed.json()).toEqual([{ jsonrpc: '2.0', id: 5, result: '0x7a69' }]);
    // id null is a request (answered with id null), not a notification.
    const nullId = await post({ jsonrpc: '2.0', id: null, method: 'eth_chainId' });
    expect(await nullId.json()).toEqual({ jsonrpc: '2.0', id: null, result: '0x7a69' });
    const objectId = await post({ jsonrpc: '2.0', id: { a: 1 }, method: 'eth_chainId' });
    expect(await objectId.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });
});
