import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexedChain } from '../indexer/support.ts';
import { callApi, postWebhook, type Receiver, startWebhookChain, type WebhookChain } from './support.ts';

const watched = '0x00000000000000000000000000000000000c0de9' as Address;
const blocks = 10;
const transfersPerBlock = 3;
const cap = 10;
const pageEvents = 4;

describe('POST /v1/webhooks/{id}/replay: paged, bounded transactions, capped at whole blocks', () => {
  let setup: WebhookChain;
  let chain: IndexedChain;
  let receiver: Receiver;
  let key: string;
  let firstBlock = 0;

  const api = (method: string, path: string, body?: unknown) => callApi(chain.service.url, key, method, path, body);

  beforeAll(async () => {
    setup = await startWebhookChain({ settings: { webhooks: { replay_max_events: cap, replay_page_events: pageEvents } } });
    ({ chain, receiver, key } = setup);
    // Three transfers to the watched address in each of ten blocks.
    let nonce = await chain.publicClient.getTransactionCount({ address: chain.wallet.account.address, blockTag: 'pending' });
    await chain.anvilRpc('evm_setAutomine', [false]);
    try {
      for (let block = 0; block < blocks; block++) {
        for (let i = 0; i < transfersPerBlock; i++) {
          await chain.wallet.sendTransaction({ to: watched, value: BigInt(block * 10 + i + 1), nonce: nonce++ });
        }
        await chain.anvilRpc('evm_mine');
      }
    } finally {
      await chain.anvilRpc('evm_setAutomine', [true]);
    }
    await chain.synced();
    const head = Number(await chain.publicClient.getBlockNumber());
    firstBlock = head - blocks + 1;
  }, 120_000);
  afterAll(async () => {
    await setup?.stop();
  });

  it('stops at the cap on a block boundary and answers where to go on; continuing delivers every event once, in order', async () => {
    const created = await postWebhook(chain.service.url, key, receiver.url, 'address_activity', { addresses: [watched] });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const toBlock = firstBlock + blocks - 1;

    const answers = [];
    let from = firstBlock;
    for (let call = 0; call < blocks; call++) {
      const answer = await api('POST', `/v1/webhooks/${id}/replay`, { from_block: from, to_block: toBlock });
      expect(answer.status, JSON.stringify(answer.body)).toBe(202);
      answers.push(answer.body);
      if (answer.body.complete) break;
      from = answer.body.next_from_block;
    }
    const [first] = answers;
    expect(first).toMatchObject({ from_block: firstBlock, to_block: toBlock, complete: false });
    // Whole blocks only: never more than the cap plus the rest of a block begun on a page boundary.
    for (const answer of answers) {
      expect(answer.queued % transfersPerBlock).toBe(0);
      expect(answer.queued).toBeLessThanOrEqual(cap + transfersPerBlock - 1);
      expect(answer.queued).toBeGreaterThan(0);
      if (!answer.complete) expect(answer.next_from_block).toBe(answer.from_block + answer.queued / transfersPerBlock);
    }
    expect(answers.at(-1)).toMatchObject({ complete: true, next_from_block: null });
    expect(answers.reduce((sum, answer) => sum + answer.queued, 0)).toBe(blocks * transfersPerBlock);

    // Queued in chain order, each event once, in transactions of at most one page.
    const rows = await chain.service.database.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
      .select(['d.position', 'd.created_at', 'e.id as event_id', 'e.block_number', 'e.chain_seq'])
      .where('d.webhook_id', '=', id)
      .orderBy('d.position')
      .execute();
    expect(rows).toHaveLength(blocks * transfersPerBlock);
    expect(new Set(rows.map((row) => row.event_id)).size).toBe(rows.length);
    const order = rows.map((row) => [Number(row.block_number), Number(row.chain_seq)] as const);
    const sorted = [...order].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(order).toEqual(sorted);
    // Rows written in one transaction share its now(): no group bigger than a page.
    const byTransaction = new Map<number, number>();
    for (const row of rows) {
      const at = new Date(row.created_at).getTime();
      byTransaction.set(at, (byTransaction.get(at) ?? 0) + 1);
    }
    expect(Math.max(...byTransaction.values())).toBeLessThanOrEqual(pageEvents);
    expect(byTransaction.size).toBeGreaterThanOrEqual(Math.ceil(rows.length / pageEvents));

    await receiver.waitFor(
      (requests) => requests.filter((request) => request.json?.webhook_id === id).length === rows.length,
      15_000,
      'every replayed event',
    );
    const delivered = receiver.requests.filter((request) => request.json?.webhook_id === id).map((request) => request.json.id);
    expect(new Set(delivered).size).toBe(rows.length);
  });
});
