import { type Address, BaseError, createPublicClient, type Log, toHex, webSocket } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restrictKey } from '../support/key-restrictions.ts';
import { deployEmitter, emitPing, pingAbi, pingTopic } from './support/emitter.ts';
import { connectRaw, eventually } from './support/ws-client.ts';
import { startWsTestService, type WsTestService } from './support/ws-service.ts';

const refusedBy = "refused by this API key's restrictions.";
const unlisted: Address = '0x00000000000000000000000000000000000000aa';

describe('a key’s methods and contracts lists on the WebSocket (viem webSocket(), raw frames)', () => {
  let s: WsTestService;
  let emitter: Address;
  let contractsKey: string;
  let methodsKey: string;
  beforeAll(async () => {
    s = await startWsTestService();
    emitter = await deployEmitter(s.anvil.url, (method, params) => s.anvilCall(method, params));
    const contracts = await s.t.createKey();
    await restrictKey(s.t, contracts.keyId, { contracts: [emitter] });
    contractsKey = contracts.key;
    const methods = await s.t.createKey();
    await restrictKey(s.t, methods.keyId, { methods: ['eth_blockNumber', 'eth_chainId', 'eth_subscribe'] });
    methodsKey = methods.key;
  }, 60_000);
  afterAll(() => s?.stop());

  const viemClient = (key: string) =>
    createPublicClient({ chain: foundry, transport: webSocket(s.wsUrl(key), { retryCount: 0, timeout: 10_000 }), cacheTime: 0 });

  it('viem: eth_call to the listed contract passes; to another fails with -32010 naming it', async () => {
    const client = viemClient(contractsKey);
    await client.call({ to: emitter, data: toHex(1n, { size: 32 }) });
    const error = await client.call({ to: unlisted, data: '0x' }).catch((e: unknown) => e);
    const coded = error instanceof BaseError ? error.walk((e) => (e as { code?: unknown }).code === -32010) : undefined;
    expect(coded, String(error)).toBeDefined();
    expect(String(error)).toContain(`${refusedBy}contracts: the contract ${unlisted} is not listed`);
    await (await client.transport.getRpcClient()).close();
  });

  it('viem: watchContractEvent on the listed contract receives its log; watchEvent without an address is refused', async () => {
    const client = viemClient(contractsKey);
    const logs: Log[] = [];
    const unwatch = client.watchContractEvent({ address: emitter, abi: pingAbi, onLogs: (l) => void logs.push(...l) });
    await eventually(async () => ((await s.metric('blockyard_ws_subscriptions', { kind: 'logs' })) >= 1 ? true : undefined));
    await emitPing(s.anvil.url, emitter, 11n);
    await eventually(() => (logs.length >= 1 ? true : undefined));
    expect(logs[0]!.address.toLowerCase()).toBe(emitter.toLowerCase());
    unwatch();
    // watchEvent without an address: its logs subscription is refused, and viem says so through onError.
    // viem hands the subscription's JSON-RPC error object to onError as it came.
    const errors: unknown[] = [];
    const unwatchAny = client.watchEvent({ event: pingAbi[0], onLogs: () => {}, onError: (e) => void errors.push(e) });
    await eventually(() => (errors.length > 0 ? true : undefined));
    expect(errors[0]).toMatchObject({
      code: -32010,
      message: `${refusedBy}contracts: a logs subscription must name its addresses`,
    });
    unwatchAny();
    await (await client.transport.getRpcClient()).close();
  });

  it('logs subscriptions on a contract-restricted key: without addresses refused, with an unlisted one refused, listed accepted', async () => {
    const raw = await connectRaw(s.wsUrl(contractsKey));
    const bare = await raw.call('eth_subscribe', ['logs', { topics: [pingTopic] }]);
    expect(bare.error).toEqual({ code: -32010, message: `${refusedBy}contracts: a logs subscription must name its addresses` });
    const none = await raw.call('eth_subscribe', ['logs']);
    expect(none.error.code).toBe(-32010);
    const mixed = await raw.call('eth_subscribe', ['logs', { address: [emitter, unlisted] }]);
    expect(mixed.error).toEqual({ code: -32010, message: `${refusedBy}contracts: the contract ${unlisted} is not listed` });
    const listed = await raw.call('eth_subscribe', ['logs', { address: [emitter.toUpperCase().replace('0X', '0x')] }]);
    expect(listed.result).toMatch(/^0x[0-9a-f]{32}$/);
    // Other kinds name no contract.
    expect((await raw.call('eth_subscribe', ['newHeads'])).result).toMatch(/^0x[0-9a-f]{32}$/);
    raw.close();
  });

  it('methods: eth_subscribe listed passes, eth_unsubscribe and eth_gasPrice (not listed) fail alone in a batch', async () => {
    const raw = await connectRaw(s.wsUrl(methodsKey));
    const subscribed = await raw.call('eth_subscribe', ['newHeads']);
    expect(subscribed.result).toMatch(/^0x[0-9a-f]{32}$/);
    raw.send([
      { jsonrpc: '2.0', id: 901, method: 'eth_blockNumber', params: [] },
      { jsonrpc: '2.0', id: 902, method: 'eth_gasPrice', params: [] },
      { jsonrpc: '2.0', id: 903, method: 'eth_unsubscribe', params: [subscribed.result] },
      { jsonrpc: '2.0', id: 904, method: 'eth_chainId', params: [] },
    ]);
    const answers = await raw.waitFor((m) => Array.isArray(m));
    expect(answers.map((a: { id: number }) => a.id)).toEqual([901, 902, 903, 904]);
    expect(answers[0].result).toMatch(/^0x/);
    expect(answers[1].error).toEqual({ code: -32010, message: `${refusedBy}methods: the method 'eth_gasPrice' is not listed` });
    expect(answers[2].error).toEqual({
      code: -32010,
      message: `${refusedBy}methods: the method 'eth_unsubscribe' is not listed`,
    });
    expect(answers[3].result).toBe('0x7a69');
    // The refused eth_unsubscribe left the subscription running.
    await s.anvilCall('evm_mine');
    await eventually(() => (raw.items(subscribed.result).length > 0 ? true : undefined));
    raw.close();
  });
});
