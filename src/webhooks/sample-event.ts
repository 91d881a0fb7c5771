import type { ChainEvent } from '../events/chain-event.ts';
import type { WebhookEventType } from './event-types.ts';
import type { PendingTransaction } from './match-event.ts';
import type { WebhookConfig } from './webhook-config.ts';

const sampleAddress = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const sampleHash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
/** keccak256('Transfer(address,address,uint256)'). */
const transferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const topicOf = (address: string) => `0x${address.slice(2).padStart(64, '0')}`;

/**
 * A chain event that the webhook's own filter accepts (its first address, contract, id, topic…), so
 * a test event goes through the same matcher as a real one and has exactly its shape.
 */
export function sampleChainEvent(
  type: WebhookEventType,
  config: WebhookConfig,
  network: string,
  block: { number: number; hash: string; timestamp: string },
): ChainEvent {
  const from = config.from?.[0] ?? config.addresses?.[0] ?? sampleAddress(0xa11ce);
  const to = config.to?.[0] ?? sampleAddress(0xb0b);
  const contract = config.contracts?.[0] ?? config.addresses?.[0] ?? sampleAddress(0xc0ffee);
  const value = config.min_value ?? '1000000000000000000';
  const txHash = config.tx_hashes?.[0] ?? sampleHash(0x7e57);
  const base = {
    seq: '0',
    network,
    blockNumber: block.number,
    blockHash: block.hash,
    removed: false,
    removesSeq: null,
    createdAt: new Date().toISOString(),
  };
  const log = { log_index: 0, transaction_hash: txHash, transaction_index: 0 };
  switch (type) {
    case 'new_block':
      return {
        ...base,
        type: 'block',
        data: {
          number: block.number,
          hash: block.hash,
          parent_hash: sampleHash(0),
          timestamp: block.timestamp,
          gas_used: '21000',
          transaction_count: 1,
        },
      };
    case 'mined_transaction':
    case 'address_activity':
      return {
        ...base,
        type: 'transaction',
        data: {
          hash: txHash,
          index: 0,
          from,
          to,
          value,
          status: 'success',
          contract_created: null,
          selector: config.function_selectors?.[0] ?? null,
        },
      };
    case 'token_transfer':
      return {
        ...base,
        type: 'token_transfer',
        data: {
          contract,
          from,
          to,
          value,
          ...log,
          topics: [transferTopic, topicOf(from), topicOf(to)],
          data: sampleHash(Number(1000n)),
        },
      };
    case 'nft_transfer':
      return {
        ...base,
        type: 'nft_transfer',
        data: {
          contract,
          standard: 'ERC721',
          operator: null,
          from,
          to,
          token_id: config.token_ids?.[0] ?? '1',
          amount: '1',
          batch_index: 0,
          ...log,
          topics: [transferTopic, topicOf(from), topicOf(to), sampleHash(1)],
          data: '0x',
        },
      };
    case 'internal_transfer':
      return {
        ...base,
        type: 'internal_transfer',
        data: { from, to, value, call_type: 'call', trace_path: '0', transaction_hash: txHash },
      };
    case 'log':
    case 'pending_transaction': {
      const topics = (config.topics ?? [transferTopic]).map((position) =>
        position === null ? sampleHash(0) : typeof position === 'string' ? position : (position[0] ?? sampleHash(0)),
      );
      return { ...base, type: 'log', data: { address: contract, topics, data: '0x', ...log } };
    }
  }
}

/** A pending transaction the pending_transaction webhook's filter accepts. */
export function samplePendingTransaction(config: WebhookConfig): PendingTransaction {
  const from = config.from?.[0] ?? config.addresses?.[0] ?? sampleAddress(0xa11ce);
  const to = config.to?.[0] ?? sampleAddress(0xb0b);
  const selector = config.function_selectors?.[0];
  return {
    hash: sampleHash(0x7e57),
    from,
    to,
    value: BigInt(config.min_value ?? '1000000000000000000'),
    nonce: 0,
    input: selector ? `${selector}${'0'.repeat(64)}` : '0x',
    gas: 21000n,
    gasPrice: null,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  };
}
