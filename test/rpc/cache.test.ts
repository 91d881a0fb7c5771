import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPublicClient, createWalletClient, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CachedRpcFixture, rpcCall, startCachedRpc, sumOf } from './cache-setup.ts';

// anvil's first default account: a well-known development key, funded on every anvil.
const devAccount = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const randomAddress = () => `0x${randomBytes(20).toString('hex')}`;

describe('JSON-RPC cache', () => {
  let f: CachedRpcFixture;
  beforeAll(async () => {
    f = await startCachedRpc();
    await f.viaBlockyard(rpcCall('anvil_mine', ['0x5']));
    await f.settle();
  });
  afterAll(() => f?.stop());
  /** Waits for the node itself to have the transaction's receipt (anvil mines once a second here). */
  const mined = (hash: `0x${string}`) =>
    createPublicClient({ chain: foundry, transport: http(f.t.anvil.url) }).waitForTransactionReceipt({ hash, timeout: 10_000 });

  it('answers a final block from the cache, byte for byte as anvil does (apart from id)', async () => {
    const body = rpcCall('eth_getBlockByNumber', ['0x1', true], 42);
    const first = await f.viaBlockyard(body);
    const second = await f.viaBlockyard(body);
    expect(second).toBe(await f.viaAnvil(body));
    expect(first).toBe(second);
    const withStringId = rpcCall('eth_getBlockByNumber', ['0x1', true], 'block-one');
    expect(await f.viaBlockyard(withStringId)).toBe(await f.viaAnvil(withStringId));
    expect(f.upstreamCount('"params":["0x1",true]')).toBe(1);

    const chainId = rpcCall('eth_chainId', [], 9);
    await f.viaBlockyard(chainId);
    expect(await f.viaBlockyard(chainId)).toBe(await f.viaAnvil(chainId));
    expect(f.upstreamCount('"id":9,"method":"eth_chainId"')).toBe(1);
  });

  it('serves cached calls inside a batch, in order, each with its id', async () => {
    const batch = [rpcCall('eth_getBlockByNumber', ['0x2', false], 'a'), rpcCall('eth_chainId', [], 'b')];
    await f.viaBlockyard(batch);
    const answers = JSON.parse(await f.viaBlockyard(batch)) as { id: string; result: unknown }[];
    expect(answers.map((answer) => answer.id)).toEqual(['a', 'b']);
    expect(answers[1]!.result).toBe('0x7a69');
    expect(f.upstreamCount('"params":["0x2",false]')).toBe(1);
  });

  it("re-fetches 'latest' reads once a new block is mined", async () => {
    const blockNumber = rpcCall('eth_blockNumber', [], 777);
    const before = JSON.parse(await f.viaBlockyard(blockNumber)).result as string;
    expect(JSON.parse(await f.viaBlockyard(blockNumber)).result).toBe(before);
    expect(f.upstreamCount('"id":777')).toBe(1);
    await f.viaBlockyard(rpcCall('evm_mine'));
    expect(JSON.parse(await f.viaBlockyard(blockNumber)).result).toBe(`0x${(Number(before) + 1).toString(16)}`);

    // A transaction sent straight to the node: the head watch sees the new block.
    const recipient = randomAddress();
    const balance = rpcCall('eth_getBalance', [recipient, 'latest']);
    expect(JSON.parse(await f.viaBlockyard(balance)).result).toBe('0x0');
    const wallet = createWalletClient({ account: devAccount, chain: foundry, transport: http(f.t.anvil.url) });
    const paid = await wallet.sendTransaction({ to: recipient as `0x${string}`, value: parseEther('1') });
    await mined(paid);
    await f.settle();
    expect(JSON.parse(await f.viaBlockyard(balance)).result).toBe(`0x${parseEther('1').toString(16)}`);
  });

  it('merges identical concurrent calls into one upstream call', async () => {
    const address = randomAddress();
    f.delays.set('eth_getBalance', 300);
    try {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, id) => f.viaBlockyard(rpcCall('eth_getBalance', [address, 'latest'], id))),
      );
      expect(answers.map((text) => JSON.parse(text).id)).toEqual(Array.from({ length: 10 }, (_, id) => id));
      expect(new Set(answers.map((text) => JSON.parse(text).result))).toEqual(new Set(['0x0']));
      expect(f.upstreamCount(address.slice(2))).toBe(1);
      expect(sumOf(await f.metric('blockyard_rpc_cache_merged_total'))).toBeGreaterThanOrEqual(9);
    } finally {
      f.delays.delete('eth_getBalance');
    }
  });

  it('never caches errors, nor a null answer to a lookup by hash', async () => {
    const invalid = rpcCall('eth_getBalance', ['0x1234', '0x1'], 5);
    const first = await f.viaBlockyard(invalid);
    expect(JSON.parse(first).error).toBeDefined();
    expect(await f.viaBlockyard(invalid)).toBe(await f.viaAnvil(invalid));
    expect(f.upstreamCount('["0x1234","0x1"]')).toBe(2);

    const hash = `0x${randomBytes(32).toString('hex')}`;
    const receipt = rpcCall('eth_getTransactionReceipt', [hash]);
    expect(JSON.parse(await f.viaBlockyard(receipt)).result).toBeNull();
    await f.viaBlockyard(receipt);
    expect(f.upstreamCount(hash)).toBe(2);
  });

  it('caches a receipt for one block until its block is final, then for good', async () => {
    const wallet = createWalletClient({ account: devAccount, chain: foundry, transport: http(f.t.anvil.url) });
    const hash = await wallet.sendTransaction({ to: randomAddress() as `0x${string}`, value: 1n });
    await mined(hash);
    await f.settle();
    const receipt = rpcCall('eth_getTransactionReceipt', [hash]);
    const first = await f.viaBlockyard(receipt);
    expect(JSON.parse(first).result.transactionHash).toBe(hash);
    await f.viaBlockyard(receipt);
    expect(f.upstreamCount(hash)).toBe(1);
    await f.viaBlockyard(rpcCall('anvil_mine', ['0x2']));
    await f.settle();
    expect(await f.viaBlockyard(receipt)).toBe(first);
    expect(f.upstreamCount(hash)).toBe(2);
    await f.viaBlockyard(rpcCall('evm_mine'));
    await f.settle();
    await f.viaBlockyard(receipt);
    expect(f.upstreamCount(hash)).toBe(2);
  });

  it('a reorg at the head evicts the blocks it replaced', async () => {
    const reorgsBefore = sumOf(await f.metric('blockyard_rpc_cache_reorgs_total'));
    const snapshot = JSON.parse(await f.viaAnvil(rpcCall('evm_snapshot'))).result as string;
    await f.viaAnvil(rpcCall('evm_mine'));
    await f.settle();
    const height = JSON.parse(await f.viaAnvil(rpcCall('eth_blockNumber'))).result as string;
    const blockAtHeight = rpcCall('eth_getBlockByNumber', [height, false]);
    const replaced = JSON.parse(await f.viaBlockyard(blockAtHeight)).result.hash as string;
    expect(JSON.parse(await f.viaBlockyard(blockAtHeight)).result.hash).toBe(replaced);

    await f.viaAnvil(rpcCall('evm_revert', [snapshot]));
    const latest = JSON.parse(await f.viaAnvil(rpcCall('eth_getBlockByNumber', ['latest', false]))).result;
    await f.viaAnvil(rpcCall('evm_mine', [Number(latest.timestamp) + 100]));
    const replacement = JSON.parse(await f.viaAnvil(blockAtHeight)).result.hash as string;
    expect(replacement).not.toBe(replaced);

    let seen = replaced;
    for (let attempt = 0; attempt < 50 && seen !== replacement; attempt++) {
      await sleep(100);
      seen = JSON.parse(await f.viaBlockyard(blockAtHeight)).result.hash;
    }
    expect(seen).toBe(replacement);
    expect(sumOf(await f.metric('blockyard_rpc_cache_reorgs_total'))).toBeGreaterThan(reorgsBefore);
  });

  it('a devnet rewind through the proxy (evm_revert) drops final answers and restarts the tip: nothing of the old chain is served', async () => {
    const snapshot = JSON.parse(await f.viaBlockyard(rpcCall('evm_snapshot'))).result as string;
    await f.viaBlockyard(rpcCall('anvil_mine', ['0x5']));
    await f.settle();
    const head = Number.parseInt(JSON.parse(await f.viaAnvil(rpcCall('eth_blockNumber'))).result, 16);
    // Three below the head: final (finality_depth 2), so cached for good until the chain is rewritten.
    const target = `0x${(head - 3).toString(16)}`;
    const block = rpcCall('eth_getBlockByNumber', [target, false], 'rewind');
    const old = JSON.parse(await f.viaBlockyard(block)).result.hash as string;
    expect(JSON.parse(await f.viaBlockyard(block)).result.hash).toBe(old);
    expect(f.upstreamCount(`"id":"rewind","method":"eth_getBlockByNumber","params":["${target}",false]`)).toBe(1);

    expect(JSON.parse(await f.viaBlockyard(rpcCall('evm_revert', [snapshot]))).result).toBe(true);
    // The tip starts again at once from the rewound head: not the old one, with null 'latest' blocks above the chain.
    const served = Number.parseInt(JSON.parse(await f.viaBlockyard(rpcCall('eth_blockNumber', [], 'rewound'))).result, 16);
    expect(served).toBeLessThan(head);
    expect(served).toBeLessThanOrEqual(Number.parseInt(JSON.parse(await f.viaAnvil(rpcCall('eth_blockNumber'))).result, 16));
    expect(JSON.parse(await f.viaBlockyard(rpcCall('eth_getBlockByNumber', ['latest', false], 'rewound'))).result).not.toBeNull();
    const latest = JSON.parse(await f.viaAnvil(rpcCall('eth_getBlockByNumber', ['latest', false]))).result;
    await f.viaBlockyard(rpcCall('evm_mine', [Number(latest.timestamp) + 1000]));
    await f.viaBlockyard(rpcCall('anvil_mine', ['0x5']));
    await f.settle();
    const replacement = JSON.parse(await f.viaAnvil(block)).result.hash as string;
    expect(replacement).not.toBe(old);
    expect(JSON.parse(await f.viaBlockyard(block)).result.hash).toBe(replacement);
  });

  it('exports hits, misses and the cache size', async () => {
    expect(sumOf(await f.metric('blockyard_rpc_cache_hits_total'), 'layer="memory"')).toBeGreaterThan(0);
    expect(sumOf(await f.metric('blockyard_rpc_cache_misses_total'))).toBeGreaterThan(0);
    expect(sumOf(await f.metric('blockyard_rpc_cache_entries'))).toBeGreaterThan(0);
    expect(sumOf(await f.metric('blockyard_rpc_cache_bytes'))).toBeGreaterThan(0);
  });
});
