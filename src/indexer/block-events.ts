import type { ChainEventType } from '../events/chain-event.ts';
import type {
  BlockFacts,
  InternalTransferFact,
  LogFact,
  NativeTransferFact,
  NftTransferFact,
  TokenTransferFact,
  TransactionFact,
} from './decode-block.ts';

/** An event before it has a sequence number: what the store inserts. */
export interface PendingEvent {
  type: ChainEventType;
  blockNumber: number;
  blockHash: string;
  data: Record<string, unknown>;
}

/**
 * The events of one block, in a fixed order: the block, its transactions, logs, then each kind of
 * transfer. uint256 values are decimal strings (JSON has no integers that large). Shapes: docs/chain-events.md.
 *
 * A log that is a token or NFT transfer is one event, the transfer, which also carries the raw log
 * (`topics`, `data`, `transaction_index`): storing it twice doubled the bytes written per transfer,
 * the indexer's main cost.
 */
export function blockEvents(facts: BlockFacts): PendingEvent[] {
  const at = { blockNumber: facts.number, blockHash: facts.hash };
  const event = (type: ChainEventType, data: Record<string, unknown>): PendingEvent => ({ type, ...at, data });
  const rawLog = rawLogReader(facts.logs);
  const transferLogs = new Set<number>();
  for (const transfer of facts.tokenTransfers) transferLogs.add(transfer.logIndex);
  for (const transfer of facts.nftTransfers) transferLogs.add(transfer.logIndex);
  return [
    event('block', blockData(facts)),
    ...facts.transactions.map((tx) => event('transaction', transactionData(tx))),
    ...facts.logs.filter((log) => !transferLogs.has(log.logIndex)).map((log) => event('log', logData(log))),
    ...facts.tokenTransfers.map((transfer) =>
      event('token_transfer', { ...tokenTransferData(transfer), ...rawLog(transfer.logIndex) }),
    ),
    ...facts.nftTransfers.map((transfer) =>
      event('nft_transfer', { ...nftTransferData(transfer), ...rawLog(transfer.logIndex) }),
    ),
    ...facts.nativeTransfers.map((transfer) => event('native_transfer', nativeTransferData(transfer))),
    ...facts.internalTransfers.map((transfer) => event('internal_transfer', internalTransferData(transfer))),
  ];
}

/** What a transfer event carries of its log, found by log index; nothing when the log is missing. */
function rawLogReader(logs: readonly LogFact[]) {
  const logAt = new Map(logs.map((log) => [log.logIndex, log]));
  return (logIndex: number) => {
    const log = logAt.get(logIndex);
    return log ? { topics: log.topics, data: log.data, transaction_index: log.transactionIndex } : {};
  };
}

function blockData(facts: BlockFacts) {
  return {
    number: facts.number,
    hash: facts.hash,
    parent_hash: facts.parentHash,
    timestamp: facts.timestamp.toISOString(),
    gas_used: facts.gasUsed.toString(),
    transaction_count: facts.transactions.length,
  };
}

function transactionData(tx: TransactionFact) {
  return {
    hash: tx.hash,
    index: tx.index,
    from: tx.from,
    to: tx.to,
    value: tx.value.toString(),
    status: tx.status === 1 ? 'success' : 'reverted',
    contract_created: tx.contractCreated,
    selector: tx.selector,
  };
}

function logData({ address, topics, data, logIndex, transactionHash, transactionIndex }: LogFact) {
  return { address, topics, data, log_index: logIndex, transaction_hash: transactionHash, transaction_index: transactionIndex };
}

function tokenTransferData({ contract, from, to, value, logIndex, transactionHash }: TokenTransferFact) {
  return { contract, from, to, value: value.toString(), log_index: logIndex, transaction_hash: transactionHash };
}

function nftTransferData(transfer: NftTransferFact) {
  const { contract, standard, operator, from, to, tokenId, amount, logIndex, batchIndex, transactionHash } = transfer;
  return {
    contract,
    standard,
    operator,
    from,
    to,
    token_id: tokenId.toString(),
    amount: amount.toString(),
    log_index: logIndex,
    batch_index: batchIndex,
    transaction_hash: transactionHash,
  };
}

function nativeTransferData({ from, to, value, transactionHash }: NativeTransferFact) {
  return { from, to, value: value.toString(), transaction_hash: transactionHash };
}

function internalTransferData({ from, to, value, callType, tracePath, transactionHash }: InternalTransferFact) {
  return { from, to, value: value.toString(), call_type: callType, trace_path: tracePath, transaction_hash: transactionHash };
}
