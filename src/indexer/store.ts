import { type Kysely, sql, type Transaction } from 'kysely';
import { arrayLiteral } from '../db/array-literal.ts';
import { setTransactionStatementTimeout } from '../db/statement-timeout.ts';
import type { Tables } from '../db/tables.ts';
import type { ChainEvent } from '../events/chain-event.ts';
import { chainEventsChannel } from '../events/postgres-relay.ts';
import { type ChainEventRow, compareSeq, toChainEvent } from '../events/store.ts';
import { airdropsOf } from './airdrops.ts';
import type { PendingEvent } from './block-events.ts';
import { blockEvents } from './block-events.ts';
import type { BlockFacts } from './decode-block.ts';
import { updateHoldings } from './holdings.ts';
import { type OwnershipDelta, ownershipDeltas } from './ownership-deltas.ts';

/** Every writer of chain_events holds this lock until it commits, so seq order is commit order. */
const eventWriterLock = 7_245_001;

export interface StoredBlock {
  number: number;
  hash: string;
}

export interface IndexProgressRow {
  network: string;
  indexedBlock: number;
  headBlock: number;
  finalBlock: number;
  blocksPerSecond: number;
  transfersPerSecond: number;
  updatedAt: string;
}

export interface IndexStore {
  /** The newest indexed block of the network. */
  tip(network: string): Promise<StoredBlock | undefined>;
  hashes(network: string, numbers: readonly number[]): Promise<Map<number, string>>;
  /** Stores consecutive blocks and their events in one transaction; returns the committed events. */
  writeBlocks(network: string, blocks: readonly BlockFacts[]): Promise<ChainEvent[]>;
  /** Undoes every block above `ancestor` in one transaction; returns the `removed` events it appended. */
  rollbackTo(network: string, ancestor: number): Promise<ChainEvent[]>;
  saveProgress(progress: Omit<IndexProgressRow, 'updatedAt'>): Promise<void>;
  progress(): Promise<IndexProgressRow[]>;
}

/** `writeTimeoutMs`: the statement_timeout of the write transactions (limits.indexer_statement_timeout_ms; 0: none). */
export function createIndexStore(db: Kysely<Tables>, writeTimeoutMs = 0): IndexStore {
  return {
    tip: (network) => readTip(db, network),
    hashes: (network, numbers) => readHashes(db, network, numbers),
    writeBlocks: (network, blocks) => writeBlocks(db, network, blocks, writeTimeoutMs),
    rollbackTo: (network, ancestor) => rollbackTo(db, network, ancestor, writeTimeoutMs),
    saveProgress: (progress) => saveProgress(db, progress),
    progress: () => readProgress(db),
  };
}

export type Trx = Transaction<Tables>;

async function readTip(db: Kysely<Tables>, network: string): Promise<StoredBlock | undefined> {
  const row = await db
    .selectFrom('index_blocks')
    .select(['number', 'hash'])
    .where('network', '=', network)
    .orderBy('number', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? { number: Number(row.number), hash: row.hash } : undefined;
}

async function readHashes(db: Kysely<Tables>, network: string, numbers: readonly number[]): Promise<Map<number, string>> {
  if (numbers.length === 0) return new Map();
  const rows = await db
    .selectFrom('index_blocks')
    .select(['number', 'hash'])
    .where('network', '=', network)
    .where('number', 'in', numbers.map(String))
    .execute();
  return new Map(rows.map((row) => [Number(row.number), row.hash]));
}

async function writeBlocks(
  db: Kysely<Tables>,
  network: string,
  blocks: readonly BlockFacts[],
  timeoutMs: number,
): Promise<ChainEvent[]> {
  if (blocks.length === 0) return [];
  const pending = blocks.flatMap(blockEvents);
  return db.transaction().execute(async (trx) => {
    await setTransactionStatementTimeout(trx, timeoutMs);
    await sql`select pg_advisory_xact_lock(${eventWriterLock})`.execute(trx);
    await insertBlocks(trx, network, blocks);
    await insertTransfers(trx, network, blocks);
    await updateHoldings(trx, network, blocks);
    await applyOwnership(trx, network, ownershipDeltas(nftMovements(blocks)));
    const events = await insertEvents(trx, network, pending);
    await sql`select pg_notify(${chainEventsChannel}, ${network})`.execute(trx);
    return events;
  });
}

async function rollbackTo(db: Kysely<Tables>, network: string, ancestor: number, timeoutMs: number): Promise<ChainEvent[]> {
  return db.transaction().execute(async (trx) => {
    await setTransactionStatementTimeout(trx, timeoutMs);
    await sql`select pg_advisory_xact_lock(${eventWriterLock})`.execute(trx);
    const removed = await appendRemovedEvents(trx, network, ancestor);
    await undoOwnershipAbove(trx, network, ancestor);
    await deleteRowsAbove(trx, network, ancestor);
    await sql`select pg_notify(${chainEventsChannel}, ${network})`.execute(trx);
    return removed;
  });
}

/** A `removed` event for every live event above the ancestor that has none yet, in seq order. */
async function appendRemovedEvents(trx: Trx, network: string, ancestor: number): Promise<ChainEvent[]> {
  const removed = await sql<ChainEventRow>`
    insert into chain_events (network, type, block_number, block_hash, removed, removes_seq, data)
    select e.network, e.type, e.block_number, e.block_hash, true, e.seq, e.data
    from chain_events e
    where e.network = ${network} and e.block_number > ${ancestor} and e.removed = false
      and not exists (select 1 from chain_events r where r.removes_seq = e.seq)
    order by e.seq desc
    returning seq, network, type, block_number, block_hash, removed, removes_seq, data, created_at`.execute(trx);
  return removed.rows.map(toChainEvent).sort((a, b) => compareSeq(a.seq, b.seq));
}

/** Undoes the NFT transfers above the ancestor: ownership goes back to what it was there. */
async function undoOwnershipAbove(trx: Trx, network: string, ancestor: number) {
  const dropped = await trx
    .selectFrom('nft_transfers')
    .select(['contract', 'standard', 'from_address', 'to_address', 'token_id', 'amount'])
    .where('network', '=', network)
    .where('block_number', '>', String(ancestor))
    .execute();
  const undone = ownershipDeltas(
    dropped.map((row) => ({
      contract: row.contract,
      standard: row.standard,
      from: row.from_address,
      to: row.to_address,
      tokenId: BigInt(row.token_id),
      amount: BigInt(row.amount),
    })),
    -1,
  );
  await applyOwnership(trx, network, undone);
  await reacquireAt(trx, network, ancestor, undone);
}

/** The newest acquisition of each undone holding that is left, from the transfers at or below the ancestor. */
async function reacquireAt(trx: Trx, network: string, ancestor: number, undone: readonly OwnershipDelta[]) {
  if (undone.length === 0) return;
  await sql`
    update nft_ownership o set acquired_block = (
      select max(t.block_number) from nft_transfers t
      where t.network = o.network and t.to_address = o.owner and t.contract = o.contract and t.token_id = o.token_id
        and t.block_number <= ${ancestor})
    from unnest(${arrayLiteral(undone.map((d) => d.contract))}::text[], ${arrayLiteral(undone.map((d) => d.tokenId))}::numeric[],
      ${arrayLiteral(undone.map((d) => d.owner))}::text[]) as u(contract, token_id, owner)
    where o.network = ${network} and o.contract = u.contract and o.token_id = u.token_id and o.owner = u.owner`.execute(trx);
}

/** Each NFT transfer of the blocks with its block number (the acquisition ownership records). */
export function nftMovements(blocks: readonly BlockFacts[]) {
  return blocks.flatMap((block) => block.nftTransfers.map((transfer) => ({ ...transfer, block: block.number })));
}

async function deleteRowsAbove(trx: Trx, network: string, ancestor: number) {
  const above = String(ancestor);
  for (const table of [
    'index_transactions',
    'token_transfers',
    'nft_transfers',
    'nft_airdrops',
    'native_transfers',
    'internal_transfers',
  ] as const) {
    await trx.deleteFrom(table).where('network', '=', network).where('block_number', '>', above).execute();
  }
  for (const table of ['token_holdings', 'nft_holder_collections'] as const) {
    await trx.deleteFrom(table).where('network', '=', network).where('first_block', '>', above).execute();
  }
  await trx.deleteFrom('index_blocks').where('network', '=', network).where('number', '>', above).execute();
}

async function saveProgress(db: Kysely<Tables>, progress: Omit<IndexProgressRow, 'updatedAt'>): Promise<void> {
  const row = {
    network: progress.network,
    indexed_block: progress.indexedBlock,
    head_block: progress.headBlock,
    final_block: progress.finalBlock,
    blocks_per_second: progress.blocksPerSecond,
    transfers_per_second: progress.transfersPerSecond,
    // The database's clock: other processes (the API's status) judge whether the indexer runs by it.
    updated_at: sql<Date>`now()`,
  };
  await db
    .insertInto('index_progress')
    .values(row)
    .onConflict((conflict) => conflict.column('network').doUpdateSet(row))
    .execute();
}

async function readProgress(db: Kysely<Tables>): Promise<IndexProgressRow[]> {
  const rows = await db.selectFrom('index_progress').selectAll().orderBy('network').execute();
  return rows.map((row) => ({
    network: row.network,
    indexedBlock: Number(row.indexed_block),
    headBlock: Number(row.head_block),
    finalBlock: Number(row.final_block),
    blocksPerSecond: row.blocks_per_second,
    transfersPerSecond: row.transfers_per_second,
    updatedAt: new Date(row.updated_at).toISOString(),
  }));
}

export async function insertBlocks(trx: Trx, network: string, blocks: readonly BlockFacts[]) {
  await sql`
    insert into index_blocks (network, number, hash, parent_hash, timestamp, gas_used, tx_count)
    select ${network}, * from unnest(
      ${arrayLiteral(blocks.map((b) => b.number))}::int8[], ${arrayLiteral(blocks.map((b) => b.hash))}::text[],
      ${arrayLiteral(blocks.map((b) => b.parentHash))}::text[], ${arrayLiteral(blocks.map((b) => b.timestamp.toISOString()))}::timestamptz[],
      ${arrayLiteral(blocks.map((b) => b.gasUsed))}::numeric[], ${arrayLiteral(blocks.map((b) => b.transactions.length))}::int4[])`.execute(
    trx,
  );
  const txs = blocks.flatMap((block) => block.transactions.map((tx) => ({ block: block.number, tx })));
  if (txs.length === 0) return;
  await sql`
    insert into index_transactions (network, hash, block_number, tx_index, from_address, to_address, value, status, contract_created)
    select ${network}, * from unnest(
      ${arrayLiteral(txs.map((t) => t.tx.hash))}::text[], ${arrayLiteral(txs.map((t) => t.block))}::int8[], ${arrayLiteral(txs.map((t) => t.tx.index))}::int4[],
      ${arrayLiteral(txs.map((t) => t.tx.from))}::text[], ${arrayLiteral(txs.map((t) => t.tx.to))}::text[], ${arrayLiteral(txs.map((t) => t.tx.value))}::numeric[],
      ${arrayLiteral(txs.map((t) => t.tx.status))}::int2[], ${arrayLiteral(txs.map((t) => t.tx.contractCreated))}::text[])`.execute(
    trx,
  );
}

export async function insertTransfers(trx: Trx, network: string, blocks: readonly BlockFacts[]) {
  const tokens = blocks.flatMap((block) => block.tokenTransfers.map((t) => ({ block: block.number, t })));
  if (tokens.length > 0) {
    await sql`
      insert into token_transfers (network, block_number, log_index, tx_hash, contract, from_address, to_address, value)
      select ${network}, * from unnest(
        ${arrayLiteral(tokens.map((x) => x.block))}::int8[], ${arrayLiteral(tokens.map((x) => x.t.logIndex))}::int4[], ${arrayLiteral(tokens.map((x) => x.t.transactionHash))}::text[],
        ${arrayLiteral(tokens.map((x) => x.t.contract))}::text[], ${arrayLiteral(tokens.map((x) => x.t.from))}::text[], ${arrayLiteral(tokens.map((x) => x.t.to))}::text[],
        ${arrayLiteral(tokens.map((x) => x.t.value))}::numeric[])`.execute(trx);
  }
  const nfts = blocks.flatMap((block) => block.nftTransfers.map((t) => ({ block: block.number, t })));
  if (nfts.length > 0) {
    await sql`
      insert into nft_transfers (network, block_number, log_index, batch_index, tx_hash, contract, standard, operator, from_address, to_address, token_id, amount)
      select ${network}, * from unnest(
        ${arrayLiteral(nfts.map((x) => x.block))}::int8[], ${arrayLiteral(nfts.map((x) => x.t.logIndex))}::int4[], ${arrayLiteral(nfts.map((x) => x.t.batchIndex))}::int4[],
        ${arrayLiteral(nfts.map((x) => x.t.transactionHash))}::text[], ${arrayLiteral(nfts.map((x) => x.t.contract))}::text[], ${arrayLiteral(nfts.map((x) => x.t.standard))}::text[],
        ${arrayLiteral(nfts.map((x) => x.t.operator))}::text[], ${arrayLiteral(nfts.map((x) => x.t.from))}::text[], ${arrayLiteral(nfts.map((x) => x.t.to))}::text[],
        ${arrayLiteral(nfts.map((x) => x.t.tokenId))}::numeric[], ${arrayLiteral(nfts.map((x) => x.t.amount))}::numeric[])`.execute(
      trx,
    );
  }
  const airdrops = blocks.flatMap((block) => airdropsOf(block));
  if (airdrops.length > 0) {
    await sql`
      insert into nft_airdrops (network, block_number, log_index, batch_index, owner, contract, token_id)
      select ${network}, * from unnest(
        ${arrayLiteral(airdrops.map((x) => x.block))}::int8[], ${arrayLiteral(airdrops.map((x) => x.transfer.logIndex))}::int4[],
        ${arrayLiteral(airdrops.map((x) => x.transfer.batchIndex))}::int4[], ${arrayLiteral(airdrops.map((x) => x.transfer.to))}::text[],
        ${arrayLiteral(airdrops.map((x) => x.transfer.contract))}::text[], ${arrayLiteral(airdrops.map((x) => x.transfer.tokenId))}::numeric[])`.execute(
      trx,
    );
  }
  const natives = blocks.flatMap((block) => block.nativeTransfers.map((t) => ({ block: block.number, t })));
  if (natives.length > 0) {
    await sql`
      insert into native_transfers (network, block_number, tx_hash, from_address, to_address, value)
      select ${network}, * from unnest(
        ${arrayLiteral(natives.map((x) => x.block))}::int8[], ${arrayLiteral(natives.map((x) => x.t.transactionHash))}::text[],
        ${arrayLiteral(natives.map((x) => x.t.from))}::text[], ${arrayLiteral(natives.map((x) => x.t.to))}::text[], ${arrayLiteral(natives.map((x) => x.t.value))}::numeric[])`.execute(
      trx,
    );
  }
  const internals = blocks.flatMap((block) => block.internalTransfers.map((t) => ({ block: block.number, t })));
  if (internals.length > 0) {
    await sql`
      insert into internal_transfers (network, block_number, tx_hash, trace_path, call_type, from_address, to_address, value)
      select ${network}, * from unnest(
        ${arrayLiteral(internals.map((x) => x.block))}::int8[], ${arrayLiteral(internals.map((x) => x.t.transactionHash))}::text[],
        ${arrayLiteral(internals.map((x) => x.t.tracePath))}::text[], ${arrayLiteral(internals.map((x) => x.t.callType))}::text[],
        ${arrayLiteral(internals.map((x) => x.t.from))}::text[], ${arrayLiteral(internals.map((x) => x.t.to))}::text[], ${arrayLiteral(internals.map((x) => x.t.value))}::numeric[])`.execute(
      trx,
    );
  }
}

/**
 * Ownership is the sum of every indexed transfer's delta, negative sums kept (the readers count only
 * `amount > 0`): a sum does not depend on the order blocks are applied in, so a backfill of older
 * blocks, or an index that started mid-chain (a sender's first row is a -1), ends where an index
 * from genesis would. Deleting negative rows, as this once did, lost the -1 that a later (older) +1
 * must cancel.
 */
export async function applyOwnership(trx: Trx, network: string, unordered: readonly OwnershipDelta[]) {
  if (unordered.length === 0) return;
  const deltas = [...unordered].sort(compareOwnershipKeys);
  await sql`
    insert into nft_ownership (network, contract, token_id, owner, standard, amount, acquired_block)
    select ${network}, * from unnest(
      ${arrayLiteral(deltas.map((d) => d.contract))}::text[], ${arrayLiteral(deltas.map((d) => d.tokenId))}::numeric[], ${arrayLiteral(deltas.map((d) => d.owner))}::text[],
      ${arrayLiteral(deltas.map((d) => d.standard))}::text[], ${arrayLiteral(deltas.map((d) => d.amount))}::numeric[],
      ${arrayLiteral(deltas.map((d) => d.acquiredBlock))}::int8[])
    on conflict (network, contract, token_id, owner) do update set amount = nft_ownership.amount + excluded.amount,
      acquired_block = greatest(nft_ownership.acquired_block, excluded.acquired_block)`.execute(trx);
  await sql`delete from nft_ownership where network = ${network} and amount = 0`.execute(trx);
}

/**
 * The batch goes as one JSON document, parsed once by the server. As a jsonb[] parameter each event
 * was escaped into an array literal by the driver and parsed twice by the server (the array, then
 * each jsonb): that took about twice as long, and events are most of what a backfill writes.
 */
async function insertEvents(trx: Trx, network: string, pending: readonly PendingEvent[]): Promise<ChainEvent[]> {
  const batch = JSON.stringify(pending.map((e) => [e.type, e.blockNumber, e.blockHash, e.data]));
  const inserted = await sql<{ seq: string; created_at: Date | string }>`
    insert into chain_events (network, type, block_number, block_hash, data)
    select ${network}, t.e->>0, (t.e->>1)::int8, t.e->>2, t.e->3
    from jsonb_array_elements(${batch}::jsonb) with ordinality as t(e, ord)
    order by t.ord
    returning seq, created_at`.execute(trx);
  // seq values are drawn in insertion order, so the sorted seqs line up with `pending`.
  const rows = inserted.rows.sort((a, b) => compareSeq(a.seq, b.seq));
  return pending.map((event, index) => ({
    seq: rows[index]!.seq,
    network,
    type: event.type,
    blockNumber: event.blockNumber,
    blockHash: event.blockHash,
    removed: false,
    removesSeq: null,
    data: event.data,
    createdAt: new Date(rows[index]!.created_at).toISOString(),
  }));
}

/** Key order of nft_ownership rows, so concurrent writers lock them in the same order. */
function compareOwnershipKeys(a: OwnershipDelta, b: OwnershipDelta): number {
  if (a.contract !== b.contract) return a.contract < b.contract ? -1 : 1;
  if (a.tokenId !== b.tokenId) return a.tokenId < b.tokenId ? -1 : 1;
  return a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0;
}
