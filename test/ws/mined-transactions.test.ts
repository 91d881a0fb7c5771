import { describe, expect, it } from 'vitest';
import { restrictKey } from '../support/key-restrictions.ts';
import { deployEmitter, devAccount, emitPing } from './support/emitter.ts';
import { connectRaw, type RawClient } from './support/ws-client.ts';
import { useWsServiceWithKey, type WsTestService } from './support/ws-service.ts';

// anvil's second and third default accounts (unlocked on every anvil).
const second = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const third = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';

async function subscribe(client: RawClient, options?: unknown): Promise<string> {
  const answer = await client.call(
    'eth_subscribe',
    options === undefined ? ['alchemy_minedTransactions'] : ['alchemy_minedTransactions', options],
  );
  expect(answer.error).toBeUndefined();
  return answer.result as string;
}

/**
 * Alchemy's `alchemy_minedTransactions` subscription on a real anvil: every transaction of a new
 * block that an address entry takes ({from}, {to} or both), whole (as eth_getTransactionByHash
 * answers it) or as its hash, and with `includeRemoved` sent again as removed after a reorg.
 */
describe('alchemy_minedTransactions', () => {
  let s: WsTestService;
  let key: string;
  useWsServiceWithKey((started) => ({ s, key } = started));

  const sendEth = (from: string, to: string) =>
    s.anvilCall('eth_sendTransaction', [{ from, to, value: '0x1' }]) as Promise<string>;

  /**
   * Mines until the feed delivers a head above the node's head of the moment: a feed's first client
   * starts its upstream subscription, and a block mined before that is never announced.
   */
  async function feedPastHead(client: RawClient): Promise<void> {
    const now = Number(await s.anvilCall('eth_blockNumber'));
    const heads = (await client.call('eth_subscribe', ['newHeads'])).result as string;
    const deadline = Date.now() + 15_000;
    while (!client.items(heads).some((head) => Number(head.number) > now)) {
      if (Date.now() > deadline) throw new Error(`the feed delivered no head above ${now} within 15 s`);
      await s.anvilCall('evm_mine');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await client.call('eth_unsubscribe', [heads]);
  }

  it('each subscription gets the transactions its addresses take, whole or as a hash, in block order', async () => {
    const emitter = await deployEmitter(s.anvil.url, s.anvilCall);
    const client = await connectRaw(s.wsUrl(key));
    // The feed may not have passed the deployment's block yet (a busy machine): wait until it has, so
    // the deployment (from the dev account, to no one) is not taken for one of the transactions below.
    await feedPastHead(client);
    const toEmitter = await subscribe(client, { addresses: [{ to: emitter }] });
    const fromDev = await subscribe(client, { addresses: [{ from: devAccount.address }], hashesOnly: true });
    const everything = await subscribe(client);
    const pair = await subscribe(client, { addresses: [{ from: second, to: devAccount.address }] });
    const nobody = await subscribe(client, { addresses: [{ from: third }, { to: third }] });

    const ping = await emitPing(s.anvil.url, emitter, 7n);
    const transfer = await sendEth(second, devAccount.address);
    const elsewhere = await sendEth(second, devAccount.address.replace('f39', 'f38'));
    await client.waitFor((m) => m.params?.subscription === everything && m.params.result.transaction.hash === elsewhere);

    const whole = client.items(toEmitter);
    expect(whole).toHaveLength(1);
    expect(whole[0]).toEqual({ removed: false, transaction: await s.anvilCall('eth_getTransactionByHash', [ping]) });
    expect(client.items(fromDev)).toEqual([{ removed: false, transaction: { hash: ping } }]);
    expect(client.items(everything).map((item) => item.transaction.hash)).toEqual([ping, transfer, elsewhere]);
    expect(client.items(pair).map((item) => item.transaction.hash)).toEqual([transfer]);
    expect(client.items(nobody)).toEqual([]);
    client.close();
  });

  it('with includeRemoved, a transaction a reorg drops comes again with removed: true; without it, not', async () => {
    const client = await connectRaw(s.wsUrl(key));
    const withRemoved = await subscribe(client, { addresses: [{ from: second }], includeRemoved: true });
    const withoutRemoved = await subscribe(client, { addresses: [{ from: second }] });
    // The reorg below is seen as one only when the feed holds the block it forks from.
    await feedPastHead(client);
    const snapshot = await s.anvilCall('evm_snapshot');
    const hash = await sendEth(second, third);
    await client.waitFor((m) => m.params?.subscription === withoutRemoved && m.params.result.transaction.hash === hash);
    await s.anvilCall('evm_revert', [snapshot]);
    await s.anvilCall('evm_mine');
    const removed = await client.waitFor((m) => m.params?.subscription === withRemoved && m.params.result.removed === true);
    expect(removed.params.result.transaction).toMatchObject({ hash, from: second });
    // A later block is delivered to both: the one without includeRemoved saw no removal before it.
    const after = await sendEth(second, third);
    await client.waitFor((m) => m.params?.subscription === withoutRemoved && m.params.result.transaction.hash === after);
    expect(client.items(withoutRemoved).map((item) => [item.transaction.hash, item.removed])).toEqual([
      [hash, false],
      [after, false],
    ]);
    expect(client.items(withRemoved).map((item) => [item.transaction.hash, item.removed])).toEqual([
      [hash, false],
      [hash, true],
      [after, false],
    ]);
    client.close();
  });

  it('a reorg deeper than the 16 blocks whose transactions are kept replays only those blocks', async () => {
    const client = await connectRaw(s.wsUrl(key));
    const withRemoved = await subscribe(client, { addresses: [{ from: second }], includeRemoved: true });
    await feedPastHead(client);
    const snapshot = await s.anvilCall('evm_snapshot');
    const deep = await sendEth(second, third);
    await s.anvilCall('anvil_mine', ['0x10']);
    const shallow = await sendEth(second, third);
    await client.waitFor((m) => m.params?.subscription === withRemoved && m.params.result.transaction.hash === shallow);
    // A longer branch from before both: 18 blocks dropped, the deep transaction's the oldest of them.
    await s.anvilCall('evm_revert', [snapshot]);
    await s.anvilCall('anvil_mine', ['0x13']);
    await client.waitFor((m) => m.params?.subscription === withRemoved && m.params.result.removed === true);
    const heads = (await client.call('eth_subscribe', ['newHeads'])).result as string;
    await s.anvilCall('evm_mine');
    await client.waitFor((m) => m.params?.subscription === heads);
    expect(client.items(withRemoved).map((item) => [item.transaction.hash, item.removed])).toEqual([
      [deep, false],
      [shallow, false],
      [shallow, true],
    ]);
    client.close();
  });

  it('options it cannot take are -32602 naming the option', async () => {
    const client = await connectRaw(s.wsUrl(key));
    const cases: [unknown, RegExp][] = [
      [{ addresses: [{ to: '0x1234' }] }, /'addresses\[0\]\.to'.*20-byte hex address/],
      [{ addresses: [{}] }, /'addresses\[0\]': name a from or a to address/],
      [{ addresses: { to: third } }, /'addresses': must be an array/],
      [{ addresses: [{ to: third, value: 1 }] }, /unknown .*'addresses\[0\]\.value'/],
      [{ hashesOnly: 'yes' }, /'hashesOnly': must be true or false/],
      [{ toAddress: third }, /unknown alchemy_minedTransactions option 'toAddress'/],
      [{ addresses: Array.from({ length: 501 }, () => ({ from: second, to: third })) }, /1002 addresses, more than the 1000/],
      ['all', /must be an object/],
    ];
    for (const [options, message] of cases) {
      const answer = await client.call('eth_subscribe', ['alchemy_minedTransactions', options]);
      expect(answer.error?.code, JSON.stringify(options).slice(0, 80)).toBe(-32602);
      expect(answer.error.message).toMatch(message);
    }
    client.close();
  });

  it('a key limited to contracts subscribes only to transactions to listed contracts', async () => {
    const emitter = await deployEmitter(s.anvil.url, s.anvilCall);
    const created = await s.t.createKey();
    await restrictKey(s.t, created.keyId, { contracts: [emitter] });
    const limited = created.key;
    const client = await connectRaw(s.wsUrl(limited));
    for (const options of [undefined, { addresses: [{ from: second }] }, { addresses: [{ to: third }] }]) {
      const params = options === undefined ? ['alchemy_minedTransactions'] : ['alchemy_minedTransactions', options];
      const refused = await client.call('eth_subscribe', params);
      expect(refused.error?.code, JSON.stringify(options)).toBe(-32010);
    }
    const allowed = await subscribe(client, { addresses: [{ to: emitter }] });
    const ping = await emitPing(s.anvil.url, emitter, 1n);
    const item = await client.waitFor((m) => m.params?.subscription === allowed);
    expect(item.params.result.transaction.hash).toBe(ping);
    client.close();
  });
});
