import { createPublicClient, createWalletClient, http, parseEther } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import type { ReadNeed } from '../../src/chains/read-need.ts';
import { type BatchRead, sendBatch } from '../../src/indexer/batch-read.ts';
import { type BundleAnswers, bundleBatch } from '../../src/indexer/bundle-batch.ts';
import { findCommonAncestor } from '../../src/indexer/find-ancestor.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { devAccount } from './support.ts';

/** Sends a batch read straight to anvil, recording what the pool would be told: the need, each verdict. */
async function readFromAnvil<T>(url: string, read: BatchRead<T>, tamper: (text: string) => string = (text) => text) {
  const seen: { need?: ReadNeed; verdicts: unknown[] } = { verdicts: [] };
  const value = await sendBatch(async (body, need) => {
    seen.need = need;
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = tamper(await response.text());
    seen.verdicts.push(need.judge?.(text));
    return text;
  }, read);
  return { value, ...seen };
}

describe('the indexer judges each batch answer before the pool uses it', () => {
  let anvil: Devnet;
  let head: number;

  beforeAll(async () => {
    anvil = await startTestAnvil();
    const wallet = createWalletClient({ chain: foundry, transport: http(anvil.url), account: devAccount });
    const reader = createPublicClient({ chain: foundry, transport: http(anvil.url) });
    // Each mined before the next (anvil may answer the send before it mines): blocks 1, 2 and 3.
    for (let i = 0; i < 3; i++) {
      const hash = await wallet.sendTransaction({ to: '0x00000000000000000000000000000000000b10c5', value: parseEther('1') });
      await reader.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 10_000 });
    }
    head = 3;
  }, 30_000);
  afterAll(async () => {
    await anvil?.stop();
  });

  it('routes a bundle batch by its highest block and passes a real answer, interpreting it once', async () => {
    let interpreted = 0;
    const batch = bundleBatch(1, head, 'trace_block', 1);
    const counted: BatchRead<BundleAnswers> = {
      ...batch,
      interpret: (answers) => {
        interpreted++;
        return batch.interpret(answers);
      },
    };
    const { value, need, verdicts } = await readFromAnvil(anvil.url, counted);
    expect(need).toMatchObject({ block: head, oldest: 1, atTip: false, byHash: false });
    expect(need?.methods).toHaveLength(3 * head);
    expect(verdicts).toEqual([undefined]);
    expect(value.blocks.map((block) => block.number)).toEqual([1, 2, 3]);
    expect(interpreted).toBe(1);
  });

  it('calls a block the node does not have missing, so the pool asks another node', async () => {
    const { verdicts } = await readFromAnvil(anvil.url, bundleBatch(head, head + 1, 'none', 1));
    expect(verdicts).toEqual([{ kind: 'missing', detail: `block ${head + 1} answered null` }]);
    const { verdicts: notFound } = await readFromAnvil(anvil.url, bundleBatch(head, head, 'none', 1), (text) =>
      JSON.stringify(
        (JSON.parse(text) as { id: number }[]).map((answer) =>
          answer.id === 1 ? { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'header not found' } } : answer,
        ),
      ),
    );
    expect(notFound[0]).toMatchObject({ kind: 'missing' });
    // A node without the state to trace the block (pruned): one that has it may trace it.
    const { verdicts: pruned } = await readFromAnvil(anvil.url, bundleBatch(head, head, 'trace_block', 1), (text) =>
      JSON.stringify(
        (JSON.parse(text) as { id: number }[]).map((answer) =>
          answer.id === 3 ? { jsonrpc: '2.0', id: 3, error: { code: -32000, message: 'missing trie node 5e1f' } } : answer,
        ),
      ),
    );
    expect(pruned[0]).toMatchObject({ kind: 'missing', detail: expect.stringContaining('traces of block') });
  });

  it('calls an answer that contradicts the request corrupt, so it is never indexed', async () => {
    // Block 2 answered as block 1: the number asked for and the links between the blocks both break.
    const { verdicts } = await readFromAnvil(anvil.url, bundleBatch(1, 2, 'none', 1), (text) => {
      const answers = JSON.parse(text) as { id: number; result: unknown }[];
      answers.find((answer) => answer.id === 3)!.result = answers.find((answer) => answer.id === 1)!.result;
      return JSON.stringify(answers);
    });
    expect(verdicts[0]).toMatchObject({ kind: 'corrupt', detail: expect.stringContaining('wrong_block') });
    const { verdicts: unanswered } = await readFromAnvil(anvil.url, bundleBatch(1, 1, 'none', 1), (text) =>
      JSON.stringify((JSON.parse(text) as { id: number }[]).filter((answer) => answer.id !== 2)),
    );
    expect(unanswered[0]).toEqual({ kind: 'corrupt', detail: 'no answer to receipts of block 1 in the batch' });
  });
});

describe('findCommonAncestor', () => {
  const stored = new Map([10, 11, 12, 13, 14].map((n) => [n, `s${n}`]));
  const search = (canonical: Map<number, string>) =>
    findCommonAncestor({
      from: 14,
      floor: 10,
      canonical: async (numbers) => new Map(numbers.flatMap((n) => (canonical.has(n) ? [[n, canonical.get(n)!]] : []))),
      stored: async (numbers) => new Map(numbers.flatMap((n) => (stored.has(n) ? [[n, stored.get(n)!]] : []))),
    });

  it('finds the newest block both agree on, passing only blocks seen with another hash', async () => {
    const canonical = new Map([...stored, [13, 'x13'], [14, 'x14']]);
    expect(await search(canonical)).toEqual({ ancestor: 12 });
    expect(await search(new Map([...stored].map(([n]) => [n, `x${n}`])))).toEqual({ ancestor: 9 });
  });

  it('stops at a block no node has: a node behind is never a reorg', async () => {
    const behind = new Map([...stored].filter(([n]) => n <= 12));
    expect(await search(behind)).toEqual({ unknown: 14 });
    // Another hash at 14, nothing known at 13: nothing proves 13 changed, so nothing is undone yet.
    expect(await search(new Map([...behind, [14, 'x14']]))).toEqual({ unknown: 13 });
  });
});
