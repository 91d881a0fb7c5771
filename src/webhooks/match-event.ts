import type { ChainEvent } from '../events/chain-event.ts';
import type { WebhookEventType } from './event-types.ts';
import type { WebhookConfig } from './webhook-config.ts';

/** What a webhook's event says, before token facts are added (`enrich`). */
export interface MatchedEvent {
  readonly data: Record<string, unknown>;
  /** The ERC-20 whose symbol and decimals the payload names (token transfers, token address activity). */
  readonly token?: string;
  /** The NFT whose metadata (name, image) Variant B's payload carries when known. */
  readonly nft?: { readonly contract: string; readonly tokenId: string };
}

export interface NetworkFacts {
  readonly chain: string;
  readonly network: string;
  readonly nativeSymbol: string;
}

export type EventMatcher = (event: ChainEvent) => MatchedEvent | undefined;

type Data = Record<string, unknown>;
const str = (data: Data, key: string) => data[key] as string;

const setOf = (list: readonly string[] | undefined) => (list && list.length > 0 ? new Set(list) : undefined);

/**
 * Compiles a webhook's type and filter into a function that tells, for one chain event, whether the
 * webhook gets it and with what data. Pure: the same event always gives the same answer.
 */
export function compileMatcher(type: WebhookEventType, config: WebhookConfig, facts: NetworkFacts): EventMatcher {
  const addresses = setOf(config.addresses);
  const contracts = setOf(config.contracts);
  const from = setOf(config.from);
  const to = setOf(config.to);
  const tokenIds = setOf(config.token_ids);
  const txHashes = setOf(config.tx_hashes);
  const selectors = setOf(config.function_selectors);
  const minValue = config.min_value === undefined ? undefined : BigInt(config.min_value);
  const enoughValue = (value: string) => minValue === undefined || BigInt(value) >= minValue;
  /** from/to/addresses as Alchemy reads them: each given list must match; `addresses` matches either side. */
  const parties = (sender: string, receiver: string | null) =>
    (!from || from.has(sender)) &&
    (!to || (receiver !== null && to.has(receiver))) &&
    (!addresses || addresses.has(sender) || (receiver !== null && addresses.has(receiver)));
  const common = (event: ChainEvent): Data => ({
    chain: facts.chain,
    network: facts.network,
    block_number: event.blockNumber,
    block_hash: event.blockHash,
  });

  switch (type) {
    case 'new_block':
      return (event) => {
        if (event.type !== 'block') return undefined;
        const d = event.data;
        return {
          data: {
            ...common(event),
            hash: d.hash,
            parent_hash: d.parent_hash,
            timestamp: d.timestamp,
            gas_used: d.gas_used,
            transaction_count: d.transaction_count,
          },
        };
      };

    case 'mined_transaction':
      return (event) => {
        if (event.type !== 'transaction' || !txHashes?.has(str(event.data, 'hash'))) return undefined;
        return { data: { ...common(event), ...transactionData(event.data) } };
      };

    case 'address_activity':
      return (event) => {
        const d = event.data;
        if (event.type === 'transaction') {
          const receiver = (d.to as string | null) ?? (d.contract_created as string | null);
          if (!parties(str(d, 'from'), receiver) || !enoughValue(str(d, 'value'))) return undefined;
          if (selectors && !selectors.has(d.selector as string)) return undefined;
          return {
            data: {
              ...common(event),
              tx_hash: d.hash,
              from: d.from,
              to: receiver,
              value: d.value,
              asset: facts.nativeSymbol,
              contract: null,
              direction: direction(addresses, str(d, 'from')),
              category: 'external',
              status: d.status,
            },
          };
        }
        if (event.type === 'token_transfer' || event.type === 'internal_transfer') {
          if (selectors) return undefined; // a selector names a transaction's own call
          if (!parties(str(d, 'from'), str(d, 'to')) || !enoughValue(str(d, 'value'))) return undefined;
          const token = event.type === 'token_transfer';
          return {
            data: {
              ...common(event),
              tx_hash: d.transaction_hash,
              from: d.from,
              to: d.to,
              value: d.value,
              asset: token ? null : facts.nativeSymbol,
              contract: token ? d.contract : null,
              direction: direction(addresses, str(d, 'from')),
              category: token ? 'token' : 'internal',
              ...(token ? { log_index: d.log_index } : { trace_path: d.trace_path }),
            },
            ...(token ? { token: str(d, 'contract') } : {}),
          };
        }
        return undefined;
      };

    case 'token_transfer':
      return (event) => {
        const d = event.data;
        if (event.type !== 'token_transfer') return undefined;
        if (contracts && !contracts.has(str(d, 'contract'))) return undefined;
        if (!parties(str(d, 'from'), str(d, 'to')) || !enoughValue(str(d, 'value'))) return undefined;
        return {
          data: {
            ...common(event),
            tx_hash: d.transaction_hash,
            log_index: d.log_index,
            contract: d.contract,
            from: d.from,
            to: d.to,
            value: d.value,
            symbol: null,
            decimals: null,
          },
          token: str(d, 'contract'),
        };
      };

    case 'nft_transfer':
      return (event) => {
        const d = event.data;
        if (event.type !== 'nft_transfer') return undefined;
        if (contracts && !contracts.has(str(d, 'contract'))) return undefined;
        if (tokenIds && !tokenIds.has(str(d, 'token_id'))) return undefined;
        if (!parties(str(d, 'from'), str(d, 'to'))) return undefined;
        return {
          data: {
            ...common(event),
            tx_hash: d.transaction_hash,
            log_index: d.log_index,
            batch_index: d.batch_index,
            contract: d.contract,
            from: d.from,
            to: d.to,
            token_id: d.token_id,
            standard: d.standard,
            quantity: Number(d.amount),
            operator: d.operator,
          },
          nft: { contract: str(d, 'contract'), tokenId: str(d, 'token_id') },
        };
      };

    case 'internal_transfer':
      return (event) => {
        const d = event.data;
        if (event.type !== 'internal_transfer') return undefined;
        if (!parties(str(d, 'from'), str(d, 'to')) || !enoughValue(str(d, 'value'))) return undefined;
        return {
          data: {
            ...common(event),
            tx_hash: d.transaction_hash,
            from: d.from,
            to: d.to,
            value: d.value,
            call_type: d.call_type,
            trace_path: d.trace_path,
          },
        };
      };

    case 'log':
      return (event) => {
        // Transfer logs are stored once, as their transfer (docs/chain-events.md); an ERC-1155 batch
        // gives one event per id, and its log is delivered once.
        if (event.type !== 'log' && event.type !== 'token_transfer' && event.type !== 'nft_transfer') return undefined;
        const d = event.data;
        if (event.type === 'nft_transfer' && d.batch_index !== 0) return undefined;
        const address = event.type === 'log' ? str(d, 'address') : str(d, 'contract');
        if (addresses && !addresses.has(address)) return undefined;
        const topics = d.topics as string[];
        if (config.topics && !topicsMatch(config.topics, topics)) return undefined;
        return {
          data: {
            ...common(event),
            tx_hash: d.transaction_hash,
            tx_index: d.transaction_index,
            log_index: d.log_index,
            address,
            topics,
            data: d.data,
          },
        };
      };

    case 'pending_transaction':
      // Pending transactions are not chain events: see matchPendingTransaction.
      return () => undefined;
  }
}

function direction(watched: ReadonlySet<string> | undefined, sender: string): 'outgoing' | 'incoming' {
  return watched?.has(sender) ? 'outgoing' : 'incoming';
}

function transactionData(d: Data): Data {
  return {
    tx_hash: d.hash,
    tx_index: d.index,
    from: d.from,
    to: d.to,
    value: d.value,
    status: d.status,
    contract_created: d.contract_created,
    selector: d.selector ?? null,
  };
}

/** eth_getLogs semantics: per position, null matches anything, a list matches any of its entries. */
export function topicsMatch(filter: readonly (string | readonly string[] | null)[], topics: readonly string[]): boolean {
  return filter.every((wanted, index) => {
    // null, or an empty list of alternatives, matches anything, as in eth_getLogs.
    if (wanted === null || (typeof wanted !== 'string' && wanted.length === 0)) return true;
    const actual = topics[index];
    if (actual === undefined) return false;
    return typeof wanted === 'string' ? wanted === actual : wanted.includes(actual);
  });
}

/** A transaction from the mempool, as eth_getTransactionByHash gives it (lower-cased). */
export interface PendingTransaction {
  readonly hash: string;
  readonly from: string;
  readonly to: string | null;
  readonly value: bigint;
  readonly nonce: number;
  readonly input: string;
  readonly gas: bigint;
  readonly maxFeePerGas: bigint | null;
  readonly maxPriorityFeePerGas: bigint | null;
  readonly gasPrice: bigint | null;
}

/** Whether a pending_transaction webhook wants `tx`, and its data. */
export function matchPendingTransaction(config: WebhookConfig, facts: NetworkFacts, tx: PendingTransaction): Data | undefined {
  // An empty list filters nothing, as in compileMatcher (the config keeps `from: []`).
  const addresses = setOf(config.addresses);
  const from = setOf(config.from);
  const to = setOf(config.to);
  const selectors = setOf(config.function_selectors);
  if (from && !from.has(tx.from)) return undefined;
  if (to && (tx.to === null || !to.has(tx.to))) return undefined;
  if (addresses && !addresses.has(tx.from) && (tx.to === null || !addresses.has(tx.to))) return undefined;
  if (config.min_value !== undefined && tx.value < BigInt(config.min_value)) return undefined;
  const selector = tx.to && tx.input.length >= 10 ? tx.input.slice(0, 10) : null;
  if (selectors && (selector === null || !selectors.has(selector))) return undefined;
  return {
    chain: facts.chain,
    network: facts.network,
    tx_hash: tx.hash,
    from: tx.from,
    to: tx.to,
    value: tx.value.toString(),
    nonce: tx.nonce,
    gas: tx.gas.toString(),
    max_fee_per_gas: tx.maxFeePerGas?.toString() ?? null,
    max_priority_fee_per_gas: tx.maxPriorityFeePerGas?.toString() ?? null,
    gas_price: tx.gasPrice?.toString() ?? null,
    selector,
    direction: addresses?.has(tx.from) || from ? 'outgoing' : 'incoming',
  };
}
