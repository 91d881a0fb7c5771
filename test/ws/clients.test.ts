import { WebSocketProvider } from 'ethers';
import { type Block, createPublicClient, type Log, webSocket } from 'viem';
import { foundry } from 'viem/chains';
import { describe, expect, it } from 'vitest';
import { deployEmitter, emitPing, pingAbi, pingTopic } from './support/emitter.ts';
import { connectRaw, eventually } from './support/ws-client.ts';
import { useWsServiceWithKey, type WsTestService } from './support/ws-service.ts';

describe('real WebSocket clients work unchanged', () => {
  let s: WsTestService;
  let key: string;
  useWsServiceWithKey((started) => ({ s, key } = started));

  const viemClient = () =>
    createPublicClient({ chain: foundry, transport: webSocket(s.wsUrl(key), { retryCount: 0, timeout: 10_000 }), cacheTime: 0 });

  it('viem: getBlockNumber, getBalance and call go through the proxy path', async () => {
    const client = viemClient();
    const direct = BigInt((await s.anvilCall('eth_blockNumber')) as string);
    expect(await client.getBlockNumber()).toBe(direct);
    expect(await client.getChainId()).toBe(31337);
    expect(await client.getBalance({ address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266' })).toBeGreaterThan(0n);
    await (await client.transport.getRpcClient()).close();
  });

  it('viem: watchBlocks receives new blocks with the spec header fields', async () => {
    const client = viemClient();
    const blocks: Block[] = [];
    const unwatch = client.watchBlocks({ onBlock: (block) => void blocks.push(block), emitOnBegin: false });
    await eventually(async () => ((await s.metric('blockyard_ws_subscriptions', { kind: 'newHeads' })) >= 1 ? true : undefined));
    const start = BigInt((await s.anvilCall('eth_blockNumber')) as string);
    await s.anvilCall('evm_mine');
    await s.anvilCall('evm_mine');
    await eventually(() => (blocks.length >= 2 ? true : undefined));
    // viem fetches each announced block before calling onBlock, so two quick blocks may come in either order.
    blocks.sort((a, b) => Number(a.number! - b.number!));
    expect(blocks.map((b) => b.number)).toEqual([start + 1n, start + 2n]);
    expect(blocks[1]!.parentHash).toBe(blocks[0]!.hash);
    expect(blocks[0]!.gasLimit).toBeGreaterThan(0n);
    expect(typeof blocks[0]!.baseFeePerGas).toBe('bigint');
    unwatch();
    await (await client.transport.getRpcClient()).close();
  });

  it('newHeads items carry number, hash, parentHash, timestamp, gasUsed, gasLimit, baseFeePerGas as hex strings', async () => {
    const client = await connectRaw(s.wsUrl(key));
    const { result: subscription } = await client.call('eth_subscribe', ['newHeads']);
    expect(subscription).toMatch(/^0x[0-9a-f]{32}$/);
    await s.anvilCall('evm_mine');
    const head = await client.waitFor((m) => m.params?.subscription === subscription).then((m) => m.params.result);
    for (const field of ['number', 'hash', 'parentHash', 'timestamp', 'gasUsed', 'gasLimit', 'baseFeePerGas']) {
      expect(head[field], field).toMatch(/^0x[0-9a-f]+$/);
    }
    expect(head.transactions).toBeUndefined();
    client.close();
  });

  it('viem: watchContractEvent receives a log, and removed: true after a reorg drops it', async () => {
    const emitter = await deployEmitter(s.anvil.url, s.anvilCall);
    const client = viemClient();
    const logs: Log[] = [];
    const unwatch = client.watchContractEvent({
      address: emitter,
      abi: pingAbi,
      eventName: 'Ping',
      onLogs: (l) => void logs.push(...l),
    });
    await eventually(async () => ((await s.metric('blockyard_ws_subscriptions', { kind: 'logs' })) >= 1 ? true : undefined));
    // The same filter on a raw socket, to see the wire format (viem drops removed logs' flag in places).
    const raw = await connectRaw(s.wsUrl(key));
    const { result: subscription } = await raw.call('eth_subscribe', ['logs', { address: emitter, topics: [pingTopic] }]);
    const other = (await raw.call('eth_subscribe', ['logs', { address: emitter, topics: [[`0x${'ab'.repeat(32)}`]] }])).result;

    const snapshot = await s.anvilCall('evm_snapshot');
    const hash = await emitPing(s.anvil.url, emitter, 42n);
    await eventually(() => (logs.length >= 1 ? true : undefined));
    expect(logs[0]!.transactionHash).toBe(hash);
    expect((logs[0] as Log & { args: { value: bigint } }).args.value).toBe(42n);
    const added = await raw.waitFor((m) => m.params?.subscription === subscription);
    expect(added.params.result).toMatchObject({ transactionHash: hash, removed: false, address: emitter.toLowerCase() });

    // Reorg: back to before the log, then a new (empty) block at the same height.
    await s.anvilCall('evm_revert', [snapshot]);
    await s.anvilCall('evm_mine');
    const removed = await raw.waitFor((m) => m.params?.subscription === subscription && m.params.result.removed === true);
    expect(removed.params.result).toMatchObject({
      transactionHash: hash,
      removed: true,
      blockHash: added.params.result.blockHash,
    });
    await eventually(() => (logs.some((l) => l.removed) ? true : undefined));
    expect(raw.items(other)).toEqual([]);
    unwatch();
    raw.close();
    await (await client.transport.getRpcClient()).close();
  });

  it('ethers v6 WebSocketProvider: getBlockNumber and on("block")', async () => {
    const provider = new WebSocketProvider(s.wsUrl(key));
    try {
      expect(await provider.getBlockNumber()).toBe(Number(await s.anvilCall('eth_blockNumber')));
      const seen: number[] = [];
      await provider.on('block', (n: number) => void seen.push(n));
      await eventually(async () =>
        (await s.metric('blockyard_ws_subscriptions', { kind: 'newHeads' })) >= 1 ? true : undefined,
      );
      await s.anvilCall('evm_mine');
      const target = Number(await s.anvilCall('eth_blockNumber'));
      await eventually(() => (seen.includes(target) ? true : undefined));
    } finally {
      await provider.destroy();
    }
  });
});
