import { describe, expect, it } from 'vitest';
import { restrictKey } from '../support/key-restrictions.ts';
import { devAccount } from './support/emitter.ts';
import { connectRaw, eventually, type RawClient } from './support/ws-client.ts';
import { useWsServiceWithKey, type WsTestService } from './support/ws-service.ts';

// anvil's default accounts (unlocked on every anvil).
const dev = devAccount.address.toLowerCase();
const second = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const third = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';
const nobody = '0x00000000000000000000000000000000000000aa';

async function subscribe(client: RawClient, options?: unknown): Promise<string> {
  const params = options === undefined ? ['alchemy_pendingTransactions'] : ['alchemy_pendingTransactions', options];
  const answer = await client.call('eth_subscribe', params);
  expect(answer.error).toBeUndefined();
  return answer.result as string;
}

/**
 * Alchemy's `alchemy_pendingTransactions` on a real anvil (mining paused, so the transactions stay
 * pending): the node's whole-transaction pending subscription, filtered by sender or recipient.
 */
describe('alchemy_pendingTransactions', () => {
  let s: WsTestService;
  let key: string;
  useWsServiceWithKey((started) => ({ s, key } = started));

  const send = (from: string, to: string) => s.anvilCall('eth_sendTransaction', [{ from, to, value: '0x1' }]) as Promise<string>;

  it('each subscription gets the pending transactions from its fromAddress or to its toAddress, whole or as hashes', async () => {
    const client = await connectRaw(s.wsUrl(key));
    const toThird = await subscribe(client, { toAddress: third });
    const fromSecond = await subscribe(client, { fromAddress: [second], hashesOnly: true });
    const everything = await subscribe(client, {});
    const either = await subscribe(client, { fromAddress: second, toAddress: [third, nobody] });
    await eventually(async () =>
      (await s.metric('blockyard_ws_upstream_subscriptions', { kind: 'newPendingTransactionsFull' })) === 1 ? true : undefined,
    );
    await s.anvilCall('evm_setAutomine', [false]);
    try {
      const one = await send(second, dev);
      const two = await send(dev, third);
      const three = await send(dev, nobody.replace('aa', 'bb'));
      await client.waitFor((m) => m.params?.subscription === everything && m.params.result.hash === three);

      expect(client.items(everything).map((tx) => tx.hash)).toEqual([one, two, three]);
      const [whole] = client.items(toThird);
      expect(client.items(toThird)).toHaveLength(1);
      expect(whole).toMatchObject({ hash: two, from: dev, to: third, value: '0x1' });
      expect(client.items(fromSecond)).toEqual([one]);
      expect(client.items(either).map((tx) => tx.hash)).toEqual([one, two]);
    } finally {
      await s.anvilCall('evm_mine');
      await s.anvilCall('evm_setAutomine', [true]);
    }
    client.close();
    // The last subscriber gone, the node's subscription is released.
    await eventually(async () =>
      (await s.metric('blockyard_ws_upstream_subscriptions', { kind: 'newPendingTransactionsFull' })) === 0 ? true : undefined,
    );
  });

  it("newPendingTransactions in geth's and Nethermind's whole-transaction forms gives whole transactions; false gives hashes", async () => {
    const client = await connectRaw(s.wsUrl(key));
    const gethForm = (await client.call('eth_subscribe', ['newPendingTransactions', true])).result as string;
    const nethermindForm = (await client.call('eth_subscribe', ['newPendingTransactions', { includeTransactions: true }]))
      .result as string;
    const hashes = (await client.call('eth_subscribe', ['newPendingTransactions', false])).result as string;
    await eventually(async () =>
      (await s.metric('blockyard_ws_upstream_subscriptions', { kind: 'newPendingTransactionsFull' })) === 1 ? true : undefined,
    );
    await eventually(async () =>
      (await s.metric('blockyard_ws_upstream_subscriptions', { kind: 'newPendingTransactions' })) === 1 ? true : undefined,
    );
    await s.anvilCall('evm_setAutomine', [false]);
    try {
      const sent = await send(second, third);
      for (const subscription of [gethForm, nethermindForm, hashes]) {
        await client.waitFor((m) => m.params?.subscription === subscription);
      }
      expect(client.items(gethForm)).toEqual([expect.objectContaining({ hash: sent, from: second, to: third, value: '0x1' })]);
      expect(client.items(nethermindForm)).toEqual(client.items(gethForm));
      expect(client.items(hashes)).toEqual([sent]);
    } finally {
      await s.anvilCall('evm_mine');
      await s.anvilCall('evm_setAutomine', [true]);
    }
    for (const option of [1, 'true', { includeTransactions: 'yes' }, { includeTransaction: true }, [true]]) {
      const answer = await client.call('eth_subscribe', ['newPendingTransactions', option]);
      expect(answer.error?.code, JSON.stringify(option)).toBe(-32602);
      expect(answer.error.message).toMatch(/newPendingTransactions option/);
    }
    client.close();
  });

  it('options it cannot take are -32602 naming the option', async () => {
    const client = await connectRaw(s.wsUrl(key));
    const cases: [unknown, RegExp][] = [
      [{ toAddress: '0x12' }, /'toAddress': "0x12" is not a 20-byte hex address/],
      [{ fromAddress: [second, 7] }, /'fromAddress\[1\]': 7 is not/],
      [{ hashesOnly: 1 }, /'hashesOnly': must be true or false/],
      [{ addresses: [{ to: third }] }, /unknown alchemy_pendingTransactions option 'addresses'/],
      [
        { fromAddress: Array.from({ length: 1001 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`) },
        /1001 distinct addresses, more than the 1000/,
      ],
    ];
    for (const [options, message] of cases) {
      const answer = await client.call('eth_subscribe', ['alchemy_pendingTransactions', options]);
      expect(answer.error?.code, JSON.stringify(options).slice(0, 80)).toBe(-32602);
      expect(answer.error.message).toMatch(message);
    }
    client.close();
  });

  it('a key limited to contracts names listed recipients only, and no sender', async () => {
    const created = await s.t.createKey();
    await restrictKey(s.t, created.keyId, { contracts: [third] });
    const client = await connectRaw(s.wsUrl(created.key));
    for (const options of [
      undefined,
      { fromAddress: second },
      { toAddress: nobody },
      { toAddress: third, fromAddress: second },
    ]) {
      const params = options === undefined ? ['alchemy_pendingTransactions'] : ['alchemy_pendingTransactions', options];
      expect((await client.call('eth_subscribe', params)).error?.code, JSON.stringify(options)).toBe(-32010);
    }
    for (const whole of [true, { includeTransactions: true }]) {
      const answer = await client.call('eth_subscribe', ['newPendingTransactions', whole]);
      expect(answer.error?.code, JSON.stringify(whole)).toBe(-32010);
      expect(answer.error.message).toMatch(/use alchemy_pendingTransactions with 'toAddress'/);
    }
    expect((await client.call('eth_subscribe', ['newPendingTransactions'])).result).toMatch(/^0x/);
    await subscribe(client, { toAddress: [third] });
    client.close();
  });
});
