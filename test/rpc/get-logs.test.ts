import { type Address, createPublicClient, createWalletClient, type Hex, http, pad } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CachedRpcFixture, rpcCall, startCachedRpc } from './cache-setup.ts';

const devAccount = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');

/**
 * A contract whose every call emits LOG1(topic = caller, data = calldata):
 * runtime `CALLDATASIZE PUSH0 PUSH0 CALLDATACOPY CALLER CALLDATASIZE PUSH0 LOG1 STOP`, behind an init
 * code that copies those 9 bytes out and returns them.
 */
const emitterBytecode: Hex = '0x6009600a5f3960095ff3365f5f3733365fa100';

describe('eth_getLogs over ranges the upstream refuses', () => {
  let f: CachedRpcFixture;
  let emitter: Address;
  let head: number;
  beforeAll(async () => {
    f = await startCachedRpc();
    const wallet = createWalletClient({ account: devAccount, chain: foundry, transport: http(f.t.anvil.url) });
    const node = createPublicClient({ chain: foundry, transport: http(f.t.anvil.url) });
    const deployed = await node.waitForTransactionReceipt({
      hash: await wallet.deployContract({ abi: [], bytecode: emitterBytecode }),
      timeout: 10_000,
    });
    emitter = deployed.contractAddress!;
    const emit = (data: Hex) => wallet.sendTransaction({ to: emitter, data });
    for (let i = 1; i <= 6; i++) {
      await emit(pad(`0x${i.toString(16)}`));
      await f.viaAnvil(rpcCall('anvil_mine', [`0x${(i * 3).toString(16)}`]));
    }
    // Two logs in one block: the merged answer must keep their log index order.
    await f.viaAnvil(rpcCall('evm_setAutomine', [false]));
    await emit('0xaa');
    await emit('0xbb');
    await f.viaAnvil(rpcCall('evm_mine'));
    await f.viaAnvil(rpcCall('evm_setAutomine', [true]));
    // Not viem's cached number: waitForTransactionReceipt may have read one before the emits (cacheTime 4 s).
    head = Number(await node.getBlockNumber({ cacheTime: 0 }));
    // anvil may answer a send before its block is in: wait (bounded) until the node itself has all 8 logs.
    const deadline = Date.now() + 10_000;
    while ((await node.getLogs({ address: emitter, fromBlock: 0n, toBlock: BigInt(head) })).length < 8) {
      if (Date.now() > deadline) throw new Error('anvil does not hold the 8 emitted logs 10 s after they were sent');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await f.settle();
  });
  afterAll(() => f?.stop());

  const logsCall = (extra: Record<string, unknown>, id: number) =>
    rpcCall('eth_getLogs', [{ address: emitter, fromBlock: '0x0', toBlock: `0x${head.toString(16)}`, ...extra }], id);

  it.each([
    ['bisected on "range too large"', 'devnet'],
    ['split by get_logs_max_range, then bisected', 'sepolia'],
  ])('%s: all logs, in order, byte for byte as the node answers the whole range', async (_name, network) => {
    f.refuseLogsWiderThan = 3;
    try {
      const refusedBefore = f.upstream.count('eth_getLogs');
      for (const [id, extra] of [
        [11, {}],
        [12, { topics: [pad(devAccount.address)] }],
      ] as const) {
        const body = logsCall(extra, id);
        const theirs = await f.viaAnvil(body);
        expect(JSON.parse(theirs).result, 'anvil’s own answer for the whole range').toHaveLength(8);
        const ours = await f.viaBlockyard(body, network);
        expect(JSON.parse(ours).result as unknown[]).toHaveLength(8);
        expect(ours).toBe(theirs);
      }
      expect(f.upstream.count('eth_getLogs') - refusedBefore).toBeGreaterThan(10);
    } finally {
      f.refuseLogsWiderThan = undefined;
    }
  });

  it('a range reaching past the head answers as the node does, not with an error from a piece beyond it', async () => {
    const hex = (block: number) => `0x${block.toString(16)}`;
    for (const [id, fromBlock, toBlock] of [
      [21, '0x0', hex(head + 50)],
      [22, '0x0', '0xffffffff'],
      [23, hex(head - 1), hex(head + 9)],
    ] as const) {
      const body = rpcCall('eth_getLogs', [{ address: emitter, fromBlock, toBlock }], id);
      const theirs = await f.viaAnvil(body);
      expect(JSON.parse(theirs).result, `anvil answers ${fromBlock}-${toBlock} with the blocks it has`).toBeDefined();
      expect(await f.viaBlockyard(body, 'sepolia')).toBe(theirs);
    }
    const beyond = rpcCall('eth_getLogs', [{ address: emitter, fromBlock: hex(head + 5), toBlock: hex(head + 50) }], 24);
    const theirs = await f.viaAnvil(beyond);
    expect(JSON.parse(theirs).error, 'anvil refuses a range that starts past its head').toBeDefined();
    expect(await f.viaBlockyard(beyond, 'sepolia')).toBe(theirs);
    // A node that measures a range by its numbers refuses the piece reaching past the head: the
    // blocks it has are still all answered.
    f.refuseLogsWiderThan = 3;
    try {
      const upToHead = await f.viaAnvil(rpcCall('eth_getLogs', [{ address: emitter, fromBlock: '0x0', toBlock: hex(head) }], 25));
      const past = rpcCall('eth_getLogs', [{ address: emitter, fromBlock: '0x0', toBlock: hex(head + 50) }], 25);
      expect(await f.viaBlockyard(past)).toBe(upToHead);
    } finally {
      f.refuseLogsWiderThan = undefined;
    }
  });

  it.each([
    ['sent whole', 'devnet'],
    ['split by get_logs_max_range', 'sepolia'],
  ])(
    'a toBlock far past the head (%s): the logs up to the head, as anvil answers, for the calls its blocks need',
    async (_name, network) => {
      const logsBefore = f.upstreamCount(emitter);
      for (const [id, toBlock] of [
        [21, '0xffffff'],
        [22, `0x${(head + 500).toString(16)}`],
      ] as const) {
        const body = rpcCall('eth_getLogs', [{ address: emitter, fromBlock: '0x0', toBlock }], id);
        const theirs = await f.viaAnvil(body);
        expect(JSON.parse(theirs).result, 'anvil’s own answer').toHaveLength(8);
        expect(await f.viaBlockyard(body, network)).toBe(theirs);
      }
      const tip = Number.parseInt(JSON.parse(await f.viaAnvil(rpcCall('eth_blockNumber'))).result, 16);
      // sepolia splits by 4 blocks: the blocks up to the head, twice; devnet sends each range in one call.
      const needed = network === 'sepolia' ? 2 * Math.ceil((tip + 1) / 4) : 2;
      expect(f.upstreamCount(emitter) - logsBefore).toBeLessThanOrEqual(needed);
    },
  );

  it('a range that starts past the head is answered in one call, as the node answers it', async () => {
    const body = rpcCall(
      'eth_getLogs',
      [{ address: emitter, fromBlock: `0x${(head + 100).toString(16)}`, toBlock: '0xffffff' }],
      23,
    );
    const logsBefore = f.upstreamCount(emitter);
    expect(await f.viaBlockyard(body, 'sepolia')).toBe(await f.viaAnvil(body));
    expect(f.upstreamCount(emitter) - logsBefore).toBe(1);
  });

  it('returns a final range from the cache', async () => {
    const body = logsCall({ topics: [null] }, 3);
    const first = await f.viaBlockyard(body);
    const calls = f.upstream.count('eth_getLogs');
    expect(await f.viaBlockyard(body)).toBe(first);
    expect(f.upstream.count('eth_getLogs') - calls).toBe(0);
  });

  it('passes other upstream errors through unchanged', async () => {
    const body = rpcCall('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x2', topics: 'nope' }], 4);
    const answer = await f.viaBlockyard(body, 'sepolia');
    expect(JSON.parse(answer).error).toBeDefined();
    expect(answer).toBe(await f.viaAnvil(body));
  });
});
