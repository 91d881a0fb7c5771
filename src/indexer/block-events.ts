import type { ChainEventType } from '../events/chain-event.ts';
import type { BlockFacts } from './decode-block.ts';

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
  const logAt = new Map(facts.logs.map((log) => [log.logIndex, log]));
  const transferLogs = new Set<number>();
  for (const transfer of facts.tokenTransfers) transferLogs.add(transfer.logIndex);
  for (const transfer of facts.nftTransfers) transferLogs.add(transfer.logIndex);
  const rawLog = (logIndex: number) => {
    const log = logAt.get(logIndex);
    return log ? { topics: log.topics, data: log.data, transaction_index: log.transactionIndex } : {};
  };
  const events: PendingEvent[] = [
    {
      type: 'block',
      ...at,
      data: {
        number: facts.number,
        hash: facts.hash,
        parent_hash: facts.parentHash,
        timestamp: facts.timestamp.toISOString(),
        gas_used: facts.gasUsed.toString(),
        transaction_count: facts.transactions.length,
      },
    },
  ];
  for (const tx of facts.transactions) {
    events.push({
      type: 'transaction',
      ...at,
      data: {
        hash: tx.hash,
        index: tx.index,
        from: tx.from,
        to: tx.to,
        value: tx.value.toString(),
        status: tx.status === 1 ? 'success' : 'reverted',
        contract_created: tx.contractCreated,
        selector: tx.selector,
      },
    });
  }
  for (const log of facts.logs) {
    if (transferLogs.has(log.logIndex)) continue;
    events.push({
      type: 'log',
      ...at,
      data: {
        address: log.address,
        topics: log.topics,
        data: log.data,
        log_index: log.logIndex,
        transaction_hash: log.transactionHash,
        transaction_index: log.transactionIndex,
      },
    });
  }
  for (const transfer of facts.tokenTransfers) {
    events.push({
      type: 'token_transfer',
      ...at,
      data: {
        contract: transfer.contract,
        from: transfer.from,
        to: transfer.to,
        value: transfer.value.toString(),
        log_index: transfer.logIndex,
        transaction_hash: transfer.transactionHash,
        ...rawLog(transfer.logIndex),
      },
    });
  }
  for (const transfer of facts.nftTransfers) {
    events.push({
      type: 'nft_transfer',
      ...at,
      data: {
        contract: transfer.contract,
        standard: transfer.standard,
        operator: transfer.operator,
        from: transfer.from,
        to: transfer.to,
        token_id: transfer.tokenId.toString(),
        amount: transfer.amount.toString(),
        log_index: transfer.logIndex,
        batch_index: transfer.batchIndex,
        transaction_hash: transfer.transactionHash,
        ...rawLog(transfer.logIndex),
      },
    });
  }
  for (const transfer of facts.nativeTransfers) {
    events.push({
      type: 'native_transfer',
      ...at,
      data: {
        from: transfer.from,
        to: transfer.to,
        value: transfer.value.toString(),
        transaction_hash: transfer.transactionHash,
      },
    });
  }
  for (const transfer of facts.internalTransfers) {
    events.push({
      type: 'internal_transfer',
      ...at,
      data: {
        from: transfer.from,
        to: transfer.to,
        value: transfer.value.toString(),
        call_type: transfer.callType,
        trace_path: transfer.tracePath,
        transaction_hash: transfer.transactionHash,
      },
    });
  }
  return events;
}
