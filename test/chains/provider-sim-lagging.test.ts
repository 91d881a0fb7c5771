import { afterEach, describe, expect, it } from 'vitest';
import {
  blockHash,
  call,
  cleanUp,
  funded,
  numberer,
  post,
  type Reply,
  result,
  rpc,
  simOverAnvil,
  sleep,
} from './support/sim-over-anvil.ts';

/** Runtime code that logs an empty LOG0 on any call: PUSH1 0 PUSH1 0 LOG0 STOP. */
const emitterCode = '0x60006000a000';
/** Runtime code that returns the block number it runs in: NUMBER PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN. */
const blockNumberCode = '0x4360005260206000f3';
const emitter = '0x00000000000000000000000000000000000e1117';

afterEach(cleanUp);

/** Sends a transaction from the funded account and waits (bounded) until automine has put it in a block. */
async function mined(url: string, transaction: object): Promise<{ hash: string; blockNumber: number }> {
  const hash = await result<string>(url, 'eth_sendTransaction', [{ from: funded, ...transaction }]);
  const deadline = Date.now() + 5_000;
  for (;;) {
    const receipt = await result<{ blockNumber: string } | null>(url, 'eth_getTransactionReceipt', [hash]);
    if (receipt !== null) return { hash, blockNumber: Number(receipt.blockNumber) };
    if (Date.now() > deadline) throw new Error(`${hash} not mined within 5 s`);
    await sleep(10);
  }
}

describe('lagBlocks: a node N blocks behind', () => {
  it('says the real head minus N as its block number, never below 0', async () => {
    const { sim } = await simOverAnvil({ lagBlocks: 3 }, 10);
    expect(await result(sim.url, 'eth_blockNumber')).toBe('0x7');
    sim.set({ lagBlocks: 20 });
    expect(await result(sim.url, 'eth_blockNumber')).toBe('0x0');
    sim.reset();
    expect(await result(sim.url, 'eth_blockNumber')).toBe('0xa');
  });

  it('answers null for a block above its head, by number and by hash, in every block method', async () => {
    const { anvil, sim } = await simOverAnvil({ lagBlocks: 3 }, 10);
    const above = await blockHash(anvil.url, 8);
    const atHead = await blockHash(anvil.url, 7);
    for (const [method, params] of [
      ['eth_getBlockByNumber', ['0x8', false]],
      ['eth_getBlockByHash', [above, false]],
      ['eth_getBlockReceipts', ['0x8']],
      ['eth_getBlockReceipts', [above]],
      ['eth_getBlockTransactionCountByNumber', ['0x8']],
      ['eth_getBlockTransactionCountByHash', [above]],
      ['eth_getTransactionByBlockNumberAndIndex', ['0x8', '0x0']],
    ] as const) {
      expect(await rpc(sim.url, method, [...params]), method).toEqual({ jsonrpc: '2.0', id: 1, result: null });
    }
    expect(await blockHash(sim.url, 7)).toBe(atHead);
    expect(await result(sim.url, 'eth_getBlockByHash', [atHead, false])).toMatchObject({ number: '0x7' });
    expect(await result(sim.url, 'eth_getBlockReceipts', [atHead])).toEqual([]);
  });

  it('resolves latest, pending, safe and finalized against its own head (anvil: safe 32, finalized 64 below)', async () => {
    // anvil's own pending block is head + 1; the lagging node answers pending as its latest.
    const { anvil, sim } = await simOverAnvil({ lagBlocks: 3 }, 100);
    const numberAt = async (url: string, tag: string) =>
      Number((await result<{ number: string }>(url, 'eth_getBlockByNumber', [tag, false])).number);
    const tags = ['latest', 'pending', 'safe', 'finalized'];
    expect(await Promise.all(tags.map((tag) => numberAt(anvil.url, tag)))).toEqual([100, 101, 68, 36]);
    expect(await Promise.all(tags.map((tag) => numberAt(sim.url, tag)))).toEqual([97, 97, 65, 33]);
    sim.set({ lagBlocks: 90 });
    expect(await Promise.all(tags.map((tag) => numberAt(sim.url, tag)))).toEqual([10, 10, 0, 0]);
  });

  it('knows no transaction mined above its head until its head reaches that block', async () => {
    const { anvil, sim } = await simOverAnvil({ lagBlocks: 2 }, 5);
    const { hash, blockNumber } = await mined(anvil.url, { to: numberer, value: '0x1' });
    expect(blockNumber).toBe(6);
    expect(await result(sim.url, 'eth_getTransactionReceipt', [hash])).toBeNull();
    expect(await result(sim.url, 'eth_getTransactionByHash', [hash])).toBeNull();

    await result(anvil.url, 'anvil_mine', ['0x1']);
    expect(await result(sim.url, 'eth_getTransactionReceipt', [hash])).toBeNull();
    await result(anvil.url, 'anvil_mine', ['0x1']);
    expect(await result(sim.url, 'eth_getTransactionReceipt', [hash])).toMatchObject({ blockNumber: '0x6', status: '0x1' });
    expect(await result(sim.url, 'eth_getTransactionByHash', [hash])).toMatchObject({ hash, blockNumber: '0x6' });
  });

  it('serves logs only up to its head: ranges clipped, a range above it empty, a block hash above it "unknown block"', async () => {
    const { anvil, sim } = await simOverAnvil({ lagBlocks: 2 });
    await result(anvil.url, 'anvil_setCode', [emitter, emitterCode]);
    for (let i = 0; i < 5; i++) await mined(anvil.url, { to: emitter });
    const logBlocks = async (url: string, filter: object) =>
      (await result<{ blockNumber: string }[]>(url, 'eth_getLogs', [{ address: emitter, ...filter }])).map((log) =>
        Number(log.blockNumber),
      );

    expect(await logBlocks(anvil.url, { fromBlock: '0x0', toBlock: 'latest' })).toEqual([1, 2, 3, 4, 5]);
    expect(await logBlocks(sim.url, { fromBlock: '0x0', toBlock: 'latest' })).toEqual([1, 2, 3]);
    expect(await logBlocks(sim.url, { fromBlock: '0x2', toBlock: '0x5' })).toEqual([2, 3]);
    expect(await logBlocks(sim.url, { fromBlock: '0x4', toBlock: '0x5' })).toEqual([]);
    expect(await logBlocks(sim.url, { fromBlock: '0x0' })).toEqual([1, 2, 3]);
    expect(await logBlocks(sim.url, { blockHash: await blockHash(anvil.url, 2) })).toEqual([2]);
    expect((await rpc(sim.url, 'eth_getLogs', [{ blockHash: await blockHash(anvil.url, 4) }])).error).toEqual({
      code: -32000,
      message: 'unknown block',
    });
  });

  it('runs state reads at its head, and says "header not found" for a block above it', async () => {
    const { anvil, sim } = await simOverAnvil({ lagBlocks: 4 });
    // Set before the blocks are mined, so that the code is in the state of every one of them.
    await result(anvil.url, 'anvil_setCode', [numberer, blockNumberCode]);
    await result(anvil.url, 'anvil_mine', ['0xa']);
    const fresh = '0x00000000000000000000000000000000000f7e54';
    expect((await mined(anvil.url, { to: fresh, value: '0x64' })).blockNumber).toBe(11);
    const blockOfCall = async (...block: unknown[]) =>
      Number(await result<string>(sim.url, 'eth_call', [{ to: numberer }, ...block]));

    // The real head is 11 (the transfer's block): this node's is 7.
    expect(await blockOfCall('latest')).toBe(7);
    expect(await blockOfCall()).toBe(7);
    expect(await blockOfCall('0x5')).toBe(5);
    expect(await blockOfCall({ blockNumber: '0x6' })).toBe(6);
    expect(await result(anvil.url, 'eth_getBalance', [fresh, 'latest'])).toBe('0x64');
    expect(await result(sim.url, 'eth_getBalance', [fresh, 'latest'])).toBe('0x0');
    expect(await result(sim.url, 'eth_getTransactionCount', [funded])).toBe('0x0');

    const headerNotFound = { code: -32000, message: 'header not found' };
    expect((await rpc(sim.url, 'eth_getBalance', [fresh, '0xb'])).error).toEqual(headerNotFound);
    expect((await rpc(sim.url, 'eth_call', [{ to: numberer }, '0x8'])).error).toEqual(headerNotFound);
    expect((await rpc(sim.url, 'eth_getStorageAt', [numberer, '0x0', '0x9'])).error).toEqual(headerNotFound);
    expect((await rpc(sim.url, 'eth_getCode', [numberer, { blockHash: await blockHash(anvil.url, 9) }])).error).toEqual({
      code: -32000,
      message: 'header for hash not found',
    });
  });
});

describe('alternate: a load balancer over two unsynced nodes', () => {
  it('answers successive HTTP requests honestly, then N behind, and so on; a batch is one request', async () => {
    const { sim } = await simOverAnvil({ alternate: { lagBlocks: 3 } }, 10);
    const heads: unknown[] = [];
    for (let i = 0; i < 4; i++) heads.push(await result(sim.url, 'eth_blockNumber'));
    expect(heads).toEqual(['0xa', '0x7', '0xa', '0x7']);
    const batch = (await (
      await post(sim.url, [call('eth_blockNumber', [], 1), call('eth_blockNumber', [], 2)])
    ).json()) as Reply[];
    expect(batch.map((reply) => reply.result)).toEqual(['0xa', '0xa']);
    expect(await result(sim.url, 'eth_getBlockByNumber', ['0xa', false])).toBeNull();
  });
});
