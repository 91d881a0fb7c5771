import type { ChainEvent } from '../events/chain-event.ts';
import type { WebhookEventType } from './event-types.ts';
import type { AddressSet } from './webhook-addresses.ts';
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

/** A webhook's filter compiled once: each list as a set (an empty list filters nothing), and the checks the types share. */
export interface CompiledFilter {
  readonly facts: NetworkFacts;
  readonly addresses: AddressSet | undefined;
  readonly contracts: ReadonlySet<string> | undefined;
  readonly tokenIds: ReadonlySet<string> | undefined;
  readonly txHashes: ReadonlySet<string> | undefined;
  readonly selectors: ReadonlySet<string> | undefined;
  readonly topics: WebhookConfig['topics'];
  /** from/to/addresses as Alchemy reads them: each given list must match; `addresses` matches either side. */
  parties(sender: string, receiver: string | null): boolean;
  enoughValue(value: string | bigint): boolean;
}

/**
 * A webhook's filters made once, read by each event it is matched against. `watched`, when given,
 * stands for `config.addresses`: the webhook's list in the table, as far as a round's events need it.
 */
export function compileFilter(config: WebhookConfig, facts: NetworkFacts, watched?: AddressSet): CompiledFilter {
  const addresses = watched ?? setOf(config.addresses);
  const from = setOf(config.from);
  const to = setOf(config.to);
  const minValue = config.min_value === undefined ? undefined : BigInt(config.min_value);
  return {
    facts,
    addresses,
    contracts: setOf(config.contracts),
    tokenIds: setOf(config.token_ids),
    txHashes: setOf(config.tx_hashes),
    selectors: setOf(config.function_selectors),
    topics: config.topics,
    parties: (sender, receiver) =>
      (!from || from.has(sender)) &&
      (!to || (receiver !== null && to.has(receiver))) &&
      (!addresses || addresses.has(sender) || (receiver !== null && addresses.has(receiver))),
    enoughValue: (value) => minValue === undefined || BigInt(value) >= minValue,
  };
}

/**
 * Compiles a webhook's type and filter into a function that tells, for one chain event, whether the
 * webhook gets it and with what data. Pure: the same event always gives the same answer.
 */
export function compileMatcher(
  type: WebhookEventType,
  config: WebhookConfig,
  facts: NetworkFacts,
  watched?: AddressSet,
): EventMatcher {
  const filter = compileFilter(config, facts, watched);
  const match = matchByType[type];
  return (event) => match(filter, event);
}

type Match = (filter: CompiledFilter, event: ChainEvent) => MatchedEvent | undefined;

const matchByType: Record<WebhookEventType, Match> = {
  new_block: matchNewBlock,
  mined_transaction: matchMinedTransaction,
  address_activity: matchAddressActivity,
  token_transfer: matchTokenTransfer,
  nft_transfer: matchNftTransfer,
  internal_transfer: matchInternalTransfer,
  log: matchLog,
  // Pending transactions are not chain events: see matchPendingTransaction.
  pending_transaction: () => undefined,
};

/** Where an event is: what every payload starts with. */
function located(filter: CompiledFilter, event: ChainEvent): Data {
  return {
    chain: filter.facts.chain,
    network: filter.facts.network,
    block_number: event.blockNumber,
    block_hash: event.blockHash,
  };
}

/** A transfer's payload (token, NFT or internal, for its own type or for address activity): where, which transaction, who, then what the type adds. */
function transferData(filter: CompiledFilter, event: ChainEvent, extra: Data): Data {
  const d = event.data;
  return { ...located(filter, event), tx_hash: d.transaction_hash, from: d.from, to: d.to, ...extra };
}

/** Whether a transfer's parties and value pass the filter. */
function movesEnough(filter: CompiledFilter, d: Data): boolean {
  return filter.parties(str(d, 'from'), str(d, 'to')) && filter.enoughValue(str(d, 'value'));
}

function matchNewBlock(filter: CompiledFilter, event: ChainEvent): MatchedEvent | undefined {
  if (event.type !== 'block') return undefined;
  const d = event.data;
  return {
    data: {
      ...located(filter, event),
      hash: d.hash,
      parent_hash: d.parent_hash,
      timestamp: d.timestamp,
      gas_used: d.gas_used,
      transaction_count: d.transaction_count,
    },
  };
}

function matchMinedTransaction(filter: CompiledFilter, event: ChainEvent): MatchedEvent | undefined {
  if (event.type !== 'transaction' || !filter.txHashes?.has(str(event.data, 'hash'))) return undefined;
  return { data: { ...located(filter, event), ...transactionData(event.data) } };
}

function matchAddressActivity(filter: CompiledFilter, event: ChainEvent): MatchedEvent | undefined {
  const d = event.data;
  if (event.type === 'transaction') {
    const receiver = (d.to as string | null) ?? (d.contract_created as string | null);
    if (!filter.parties(str(d, 'from'), receiver) || !filter.enoughValue(str(d, 'value'))) return undefined;
    if (filter.selectors && !filter.selectors.has(d.selector as string)) return undefined;
    return {
      data: {
        ...located(filter, event),
        tx_hash: d.hash,
        from: d.from,
        to: receiver,
        value: d.value,
        asset: filter.facts.nativeSymbol,
        contract: null,
        direction: direction(filter.addresses, str(d, 'from')),
        category: 'external',
        status: d.status,
      },
    };
  }
  if (event.type !== 'token_transfer' && event.type !== 'internal_transfer') return undefined;
  if (filter.selectors) return undefined; // a selector names a transaction's own call
  if (!movesEnough(filter, d)) return undefined;
  const token = event.type === 'token_transfer';
  return {
    data: transferData(filter, event, {
      value: d.value,
      asset: token ? null : filter.facts.nativeSymbol,
      contract: token ? d.contract : null,
      direction: direction(filter.addresses, str(d, 'from')),
      category: token ? 'token' : 'internal',
      ...(token ? { log_index: d.log_index } : { trace_path: d.trace_path }),
    }),
    ...(token ? { token: str(d, 'contract') } : {}),
  };
}

function matchTokenTransfer(filter: CompiledFilter, event: ChainEvent): MatchedEvent | undefined {
  const d = event.data;
  if (event.type !== 'token_transfer') return undefined;
  if (filter.contracts && !filter.contracts.has(str(d, 'contract'))) return undefined;
  if (!movesEnough(filter, d)) return undefined;
  return {
    data: transferData(filter, event, {
      value: d.value,
      log_index: d.log_index,
      contract: d.contract,
      symbol: null,
      decimals: null,
    }),
    token: str(d, 'contract'),
  };
}

function matchNftTransfer(filter: CompiledFilter, event: ChainEvent): MatchedEvent | undefined {
  const d = event.data;
  if (event.type !== 'nft_transfer') return undefined;
  if (filter.contracts && !filter.contracts.has(str(d, 'contract'))) return undefined;
  if (filter.tokenIds && !filter.tokenIds.has(str(d, 'token_id'))) return undefined;
  if (!filter.parties(str(d, 'from'), str(d, 'to'))) return undefined;
  return {
    data: transferData(filter, event, {
      log_index: d.log_index,
      batch_index: d.batch_index,
      contract: d.contract,
      token_id: d.token_id,
      standard: d.standard,
      quantity: Number(d.amount),
      operator: d.operator,
    }),
    nft: { contract: str(d, 'contract'), tokenId: str(d, 'token_id') },
  };
}

function matchInternalTransfer(filter: CompiledFilter, event: ChainEvent): MatchedEvent | undefined {
  const d = event.data;
  if (event.type !== 'internal_transfer' || !movesEnough(filter, d)) return undefined;
  return { data: transferData(filter, event, { value: d.value, call_type: d.call_type, trace_path: d.trace_path }) };
}

function matchLog(filter: CompiledFilter, event: ChainEvent): MatchedEvent | undefined {
  // Transfer logs are stored once, as their transfer (docs/chain-events.md); an ERC-1155 batch
  // gives one event per id, and its log is delivered once.
  if (event.type !== 'log' && event.type !== 'token_transfer' && event.type !== 'nft_transfer') return undefined;
  const d = event.data;
  if (event.type === 'nft_transfer' && d.batch_index !== 0) return undefined;
  const address = event.type === 'log' ? str(d, 'address') : str(d, 'contract');
  if (filter.addresses && !filter.addresses.has(address)) return undefined;
  const topics = d.topics as string[];
  if (filter.topics && !topicsMatch(filter.topics, topics)) return undefined;
  return {
    data: {
      ...located(filter, event),
      tx_hash: d.transaction_hash,
      tx_index: d.transaction_index,
      log_index: d.log_index,
      address,
      topics,
      data: d.data,
    },
  };
}

function direction(watched: AddressSet | undefined, sender: string): 'outgoing' | 'incoming' {
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

/** The addresses an event's filter can ask about (parties, a log's emitter): what a round looks up in the table. */
export function addressesOfEvent(event: ChainEvent): string[] {
  const d = event.data;
  const found: string[] = [];
  for (const key of ['from', 'to', 'contract_created', 'address', 'contract']) {
    const value = d[key];
    if (typeof value === 'string' && value.length === 42) found.push(value);
  }
  return found;
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

/**
 * Whether a pending_transaction webhook wants `tx`, and its data. `filter` is the webhook's
 * `compileFilter(config, facts)`, the same as compileMatcher's, made once for all the transactions it reads.
 */
export function matchPendingTransaction(config: WebhookConfig, filter: CompiledFilter, tx: PendingTransaction): Data | undefined {
  const { facts } = filter;
  if (!filter.parties(tx.from, tx.to) || !filter.enoughValue(tx.value)) return undefined;
  const selector = tx.to && tx.input.length >= 10 ? tx.input.slice(0, 10) : null;
  if (filter.selectors && (selector === null || !filter.selectors.has(selector))) return undefined;
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
    direction: filter.addresses?.has(tx.from) || (config.from?.length ?? 0) > 0 ? 'outgoing' : 'incoming',
  };
}
