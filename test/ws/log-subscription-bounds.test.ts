import { spawn } from 'node:child_process';
import type { Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { castBinary } from '../support/cast-binary.ts';
import { deployEmitter, emitPing } from './support/emitter.ts';
import { connectRaw, eventually } from './support/ws-client.ts';
import { useWsServiceWithKey, type WsTestService } from './support/ws-service.ts';

const cast = castBinary();

/** The block a mined transaction went into (its receipt polled for at most 10 s). */
async function blockOf(s: WsTestService, hash: Hex): Promise<number> {
  const receipt = await eventually(
    async () => ((await s.anvilCall('eth_getTransactionReceipt', [hash])) as { blockNumber: string } | null) ?? undefined,
  );
  return Number(receipt.blockNumber);
}

describe('logs subscriptions with fromBlock and toBlock, as Foundry and alloy send them', () => {
  let s: WsTestService;
  let key: string;
  useWsServiceWithKey((started) => ({ s, key } = started));

  it.skipIf(cast === undefined)(
    'Foundry: cast logs --subscribe (fromBlock earliest, toBlock latest) prints a new log',
    async () => {
      const emitter = await deployEmitter(s.anvil.url, s.anvilCall);
      const before = await s.metric('blockyard_ws_subscriptions', { kind: 'logs' });
      const child = spawn(cast!, ['logs', '--subscribe', '--address', emitter, '--rpc-url', s.wsUrl(key)], {
        env: { ...process.env, NO_COLOR: '1' },
      });
      let output = '';
      child.stdout.on('data', (chunk) => (output += String(chunk)));
      child.stderr.on('data', (chunk) => (output += String(chunk)));
      try {
        await eventually(async () =>
          (await s.metric('blockyard_ws_subscriptions', { kind: 'logs' })) > before || child.exitCode !== null ? true : undefined,
        );
        expect(child.exitCode, output).toBeNull();
        const hash = await emitPing(s.anvil.url, emitter, 42n);
        await eventually(() => (output.includes(hash) ? true : undefined));
        expect(output).toMatch(/data: 0x0+2a/);
        expect(output).not.toMatch(/error/i);
      } finally {
        child.kill();
      }
    },
  );

  it('a block number bounds the blocks whose logs are sent; a tag bounds nothing', async () => {
    const emitter = await deployEmitter(s.anvil.url, s.anvilCall);
    const head = Number(await s.anvilCall('eth_blockNumber'));
    const client = await connectRaw(s.wsUrl(key));
    const bounds = { fromBlock: `0x${(head + 2).toString(16)}`, toBlock: `0x${(head + 3).toString(16)}` };
    const bounded = (await client.call('eth_subscribe', ['logs', { address: emitter, ...bounds }])).result;
    const tagged = (await client.call('eth_subscribe', ['logs', { address: emitter, fromBlock: 'earliest', toBlock: 'latest' }]))
      .result;
    expect(bounded).toMatch(/^0x/);
    expect(tagged).toMatch(/^0x/);

    const pings: { hash: Hex; block: number }[] = [];
    for (let value = 1n; value <= 4n; value++) {
      const hash = await emitPing(s.anvil.url, emitter, value);
      pings.push({ hash, block: await blockOf(s, hash) });
    }
    await eventually(() => (client.items(tagged).length >= pings.length ? true : undefined));
    expect(client.items(tagged).map((item) => item.transactionHash)).toEqual(pings.map((ping) => ping.hash));
    const inBounds = pings.filter((ping) => ping.block >= head + 2 && ping.block <= head + 3);
    // The first ping's block is at most head + 1: a filter that ignored the bounds would send it too.
    expect(pings[0]!.block).toBeLessThan(head + 2);
    expect(inBounds.length).toBeGreaterThan(0);
    expect(client.items(bounded).map((item) => item.transactionHash)).toEqual(inBounds.map((ping) => ping.hash));
    client.close();
  });

  it('bounds it cannot take are -32602 naming them', async () => {
    const client = await connectRaw(s.wsUrl(key));
    const reversed = await client.call('eth_subscribe', ['logs', { fromBlock: '0x10', toBlock: '0x2' }]);
    expect(reversed.error).toEqual({ code: -32602, message: 'invalid logs filter: fromBlock 0x10 is after toBlock 0x2' });
    const word = await client.call('eth_subscribe', ['logs', { toBlock: 'newest' }]);
    expect(word.error.code).toBe(-32602);
    expect(word.error.message).toMatch(/'toBlock': "newest" is not a hex block number/);
    const blockHash = await client.call('eth_subscribe', ['logs', { blockHash: `0x${'12'.repeat(32)}` }]);
    expect(blockHash.error.code).toBe(-32602);
    expect(blockHash.error.message).toMatch(/'blockHash'.*eth_getLogs/);
    client.close();
  });
});
