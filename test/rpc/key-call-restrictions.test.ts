import { type Address, BaseError, createPublicClient, createWalletClient, HttpRequestError, http, toHex } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restrictKey } from '../support/key-restrictions.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { deployEmitter, devAccount, emitPing, pingAbi } from '../ws/support/emitter.ts';

const refusedBy = "refused by this API key's restrictions.";
const unlisted: Address = '0x00000000000000000000000000000000000000aa';

interface Answer {
  id: number;
  result?: string;
  error?: { code: number; message: string };
}
interface ErrorAnswer {
  error: { code: string; message: string; status: number };
}

/** The HTTP error viem raised for a 403, found inside whatever viem wrapped it in. */
function httpErrorOf(error: unknown): HttpRequestError {
  const found = error instanceof BaseError ? error.walk((e) => e instanceof HttpRequestError) : undefined;
  if (!(found instanceof HttpRequestError)) throw error;
  return found;
}

/** The JSON-RPC error code viem raised for one call, found inside its wrappers. */
function rpcCodeOf(error: unknown): number | undefined {
  const found = error instanceof BaseError ? error.walk((e) => typeof (e as { code?: unknown }).code === 'number') : undefined;
  return (found as { code?: number } | undefined)?.code;
}

describe('a key’s methods and contracts lists on /v1/rpc (viem over HTTP, raw fetch)', () => {
  let t: TestService;
  let url: string;
  let emitter: Address;
  let methodsKey: string;
  let contractsKey: string;
  let openKey: string;
  beforeAll(async () => {
    t = await startTestService();
    url = `${t.url}/v1/rpc/ethereum/devnet`;
    const anvil = createPublicClient({ chain: foundry, transport: http(t.anvil.url) });
    emitter = await deployEmitter(t.anvil.url, (method, params) => anvil.request({ method, params } as never));
    await emitPing(t.anvil.url, emitter, 5n);
    const methods = await t.createKey();
    await restrictKey(t, methods.keyId, { methods: ['eth_blockNumber', 'eth_chainId', 'eth_call'] });
    methodsKey = methods.key;
    const contracts = await t.createKey();
    await restrictKey(t, contracts.keyId, { contracts: [emitter.toLowerCase()] });
    contractsKey = contracts.key;
    openKey = (await t.createKey()).key;
  }, 60_000);
  afterAll(() => t?.stop());

  const client = (key: string, batch = false) =>
    createPublicClient({
      chain: foundry,
      transport: http(url, { fetchOptions: { headers: { 'x-api-key': key } }, retryCount: 0, batch }),
      cacheTime: 0,
    });

  it('methods: a listed method passes; another is 403 forbidden naming the method', async () => {
    expect(await client(methodsKey).getBlockNumber()).toBeGreaterThan(0n);
    const error = httpErrorOf(
      await client(methodsKey)
        .getGasPrice()
        .catch((e: unknown) => e),
    );
    expect(error.status).toBe(403);
    expect(JSON.parse(error.details)).toEqual({
      code: 'forbidden',
      message: `${refusedBy}methods: the method 'eth_gasPrice' is not listed`,
      status: 403,
    });
  });

  it('contracts: eth_call to a listed contract passes; to another is 403 naming it; a key without the list calls both', async () => {
    expect((await client(contractsKey).call({ to: emitter, data: toHex(1n, { size: 32 }) })).data).toBeUndefined();
    const error = httpErrorOf(
      await client(contractsKey)
        .call({ to: unlisted, data: '0x' })
        .catch((e: unknown) => e),
    );
    expect(error.status).toBe(403);
    expect(JSON.parse(error.details).message).toBe(`${refusedBy}contracts: the contract ${unlisted} is not listed`);
    await client(openKey).call({ to: unlisted, data: '0x' });
    // Calls that touch no contract pass.
    expect(await client(contractsKey).getBalance({ address: unlisted })).toBe(0n);
  });

  it('contracts: eth_getLogs with the listed address passes; without addresses it is 403 “must name its addresses”', async () => {
    const logs = await client(contractsKey).getLogs({ address: emitter, event: pingAbi[0], fromBlock: 0n });
    expect(logs.map((log) => log.args.value)).toEqual([5n]);
    const error = httpErrorOf(
      await client(contractsKey)
        .getLogs({ event: pingAbi[0], fromBlock: 0n })
        .catch((e: unknown) => e),
    );
    expect(error.status).toBe(403);
    expect(JSON.parse(error.details).message).toBe(`${refusedBy}contracts: eth_getLogs must name its addresses`);
  });

  it('contracts: a raw transaction to the listed contract is sent; one to another contract is 403 naming it', async () => {
    const wallet = createWalletClient({
      account: devAccount,
      chain: foundry,
      transport: http(url, { fetchOptions: { headers: { 'x-api-key': contractsKey } }, retryCount: 0 }),
    });
    const nonce = await createPublicClient({ chain: foundry, transport: http(t.anvil.url) }).getTransactionCount({
      address: devAccount.address,
    });
    const sign = (to: Address, offset: number) =>
      devAccount.signTransaction({
        chainId: foundry.id,
        to,
        nonce: nonce + offset,
        gas: 100_000n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1n,
        data: toHex(9n, { size: 32 }),
      });
    const hash = await wallet.sendRawTransaction({ serializedTransaction: await sign(emitter, 0) });
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    const error = httpErrorOf(
      await wallet.sendRawTransaction({ serializedTransaction: await sign(unlisted, 1) }).catch((e: unknown) => e),
    );
    expect(error.status).toBe(403);
    expect(JSON.parse(error.details).message).toBe(`${refusedBy}contracts: the contract ${unlisted} is not listed`);
  });

  it('a viem batch with one refused call among allowed ones: only that call fails (-32010), the others answer', async () => {
    const batched = client(contractsKey, true);
    const [blockNumber, refused, allowed] = await Promise.allSettled([
      batched.getBlockNumber(),
      batched.call({ to: unlisted, data: '0x' }),
      batched.getCode({ address: emitter }),
    ]);
    expect(blockNumber.status).toBe('fulfilled');
    expect(allowed.status === 'fulfilled' && (allowed.value?.length ?? 0) > 2).toBe(true);
    expect(refused.status).toBe('rejected');
    expect(rpcCodeOf((refused as PromiseRejectedResult).reason)).toBe(-32010);
    expect(String((refused as PromiseRejectedResult).reason)).toContain(
      `${refusedBy}contracts: the contract ${unlisted} is not listed`,
    );
  });

  it('a raw batch: the refused call gets -32010 with the message, in place; a single refused call is a 403 body', async () => {
    const response = await t.rpc(methodsKey, [
      { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_getBalance', params: [unlisted, 'latest'] },
      { jsonrpc: '2.0', id: 3, method: 'eth_chainId', params: [] },
    ]);
    expect(response.status).toBe(200);
    const answers = (await response.json()) as Answer[];
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3]);
    expect(answers[0]!.result).toMatch(/^0x/);
    expect(answers[1]!.error).toEqual({
      code: -32010,
      message: `${refusedBy}methods: the method 'eth_getBalance' is not listed`,
    });
    expect(answers[2]!.result).toBe('0x7a69');

    const single = await t.rpc(methodsKey, { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [unlisted, 'latest'] });
    expect(single.status).toBe(403);
    expect(((await single.json()) as ErrorAnswer).error.message).toBe(
      `${refusedBy}methods: the method 'eth_getBalance' is not listed`,
    );
  });

  it('the Fastify route (a body without Content-Type) and the key-in-path form refuse as the fast path does', async () => {
    const body = new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_gasPrice', params: [] }));
    const viaRoute = await fetch(url, { method: 'POST', headers: { 'x-api-key': methodsKey }, body });
    expect(viaRoute.status).toBe(403);
    expect(((await viaRoute.json()) as ErrorAnswer).error.message).toContain("the method 'eth_gasPrice' is not listed");
    const inPath = await t.rpc(
      undefined,
      { jsonrpc: '2.0', id: 1, method: 'eth_gasPrice', params: [] },
      `/v1/rpc/ethereum/devnet/${methodsKey}`,
    );
    expect(inPath.status).toBe(403);
  });
});
