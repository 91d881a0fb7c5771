import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockEvents } from '../../src/indexer/block-events.ts';
import { type BlockFacts, transferTopic } from '../../src/indexer/decode-block.ts';
import { createIndexStore } from '../../src/indexer/store.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const network = 'ethereum/devnet';
const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

/** Two blocks holding every kind of fact, with nulls, a zero value and a string JSON must escape. */
function facts(): BlockFacts[] {
  const tx = (n: number) => word(0xa000 + n);
  const first: BlockFacts = {
    number: 7,
    hash: word(7),
    parentHash: word(6),
    timestamp: new Date('2026-11-27T03:00:00Z'),
    gasUsed: 21_000n,
    transactions: [
      {
        hash: tx(1),
        index: 0,
        from: address(1),
        to: address(2),
        value: 10n ** 30n,
        status: 1,
        contractCreated: null,
        selector: null,
      },
      { hash: tx(2), index: 1, from: address(1), to: null, value: 0n, status: 0, contractCreated: address(9), selector: null },
    ],
    logs: [
      { address: address(5), topics: [word(0xfeed)], data: '0x', logIndex: 0, transactionHash: tx(1), transactionIndex: 0 },
      {
        address: address(6),
        topics: [transferTopic, word(1), word(2)],
        data: word(3),
        logIndex: 1,
        transactionHash: tx(1),
        transactionIndex: 0,
      },
      {
        address: address(8),
        topics: [word(0xbeef), word(1), word(1), word(2)],
        data: `0x${'ab'.repeat(128)}`,
        logIndex: 2,
        transactionHash: tx(1),
        transactionIndex: 0,
      },
    ],
    tokenTransfers: [{ contract: address(6), from: address(1), to: address(2), value: 3n, logIndex: 1, transactionHash: tx(1) }],
    nftTransfers: [0, 1].map((batchIndex) => ({
      contract: address(8),
      standard: 'ERC1155' as const,
      operator: address(1),
      from: address(1),
      to: address(2),
      tokenId: 2n ** 255n + BigInt(batchIndex),
      amount: BigInt(batchIndex + 1),
      logIndex: 2,
      batchIndex,
      transactionHash: tx(1),
    })),
    nativeTransfers: [{ from: address(1), to: address(2), value: 10n ** 30n, transactionHash: tx(1) }],
    internalTransfers: [
      { from: address(2), to: address(3), value: 1n, transactionHash: tx(1), callType: 'call "quoted" \\ é', tracePath: '0.1' },
    ],
  };
  const second: BlockFacts = {
    ...first,
    number: 8,
    hash: word(8),
    parentHash: word(7),
    transactions: [],
    logs: [],
    tokenTransfers: [],
    nftTransfers: [],
    nativeTransfers: [],
    internalTransfers: [],
  };
  return [first, second];
}

describe('the index store writes chain events', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.close());

  it('stores each event of a batch as built, in order, under the seq it returns', async () => {
    const blocks = facts();
    const expected = blocks.flatMap(blockEvents);
    const returned = await createIndexStore(database.db).writeBlocks(network, blocks);
    const stored = await sql<{
      seq: string;
      network: string;
      type: string;
      block_number: string;
      block_hash: string;
      data: unknown;
    }>`
      select seq, network, type, block_number, block_hash, data from chain_events order by seq`.execute(database.db);

    expect(stored.rows).toHaveLength(expected.length);
    expect(stored.rows.map((row) => row.seq)).toEqual(returned.map((event) => event.seq));
    expect(
      stored.rows.map((row) => ({
        type: row.type,
        blockNumber: Number(row.block_number),
        blockHash: row.block_hash,
        data: row.data,
      })),
    ).toEqual(
      expected.map((event) => ({
        type: event.type,
        blockNumber: event.blockNumber,
        blockHash: event.blockHash,
        data: event.data,
      })),
    );
    expect(new Set(stored.rows.map((row) => row.network))).toEqual(new Set([network]));
  });
});
