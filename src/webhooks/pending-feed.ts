import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { readNeedOf } from '../chains/read-need.ts';
import type { Network } from '../chains/registry.ts';
import type { Tables } from '../db/tables.ts';
import { compileFilter, matchPendingTransaction, type NetworkFacts, type PendingTransaction } from './match-event.ts';
import { type OutboxEvent, writeOutbox } from './outbox.ts';
import { readWatchedAddresses } from './webhook-addresses.ts';
import type { MatchingWebhook } from './webhook-cache.ts';

interface RawPendingTransaction {
  hash: string;
  from: string;
  to: string | null;
  value: string;
  nonce: string;
  input: string;
  gas: string;
  gasPrice?: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  blockNumber: string | null;
}

interface PendingFeedDeps {
  db: Kysely<Tables>;
  networks: readonly Network[];
  webhooks: () => Promise<MatchingWebhook[]>;
  pollMs: number;
  queued: () => void;
  logger: Logger;
}

/** JSON-RPC to a network's upstream; one feed numbers all its requests in one sequence. */
interface FeedRpc {
  call(network: Network, method: string, params: unknown[]): Promise<unknown>;
  /** The transactions of `hashes` the upstream still knows, fetched in one batch. */
  transactions(network: Network, hashes: readonly string[]): Promise<PendingTransaction[]>;
}

/** What a feed keeps between rounds: its RPC numbering and each watched network's filter id. */
interface FeedState {
  readonly rpc: FeedRpc;
  readonly filters: Map<string, string>;
}

/**
 * `pending_transaction` webhooks: while one exists for a network, its upstream's pending-transaction
 * filter (`eth_newPendingTransactionFilter`) is read every `pollMs`, each new transaction fetched and
 * matched, and the matches queued. A hash is recorded once per webhook (its source key), so several
 * processes reading the same mempool deliver it once.
 */
export function startPendingFeed(deps: PendingFeedDeps): { close(): Promise<void> } {
  const state: FeedState = { rpc: createFeedRpc(), filters: new Map() };
  let closed = false;
  let running: Promise<void> | undefined;

  const timer = setInterval(() => {
    if (closed || running) return;
    running = pollPendingFeed(deps, state)
      .catch((error: unknown) => deps.logger.warn({ err: error }, 'pending-transaction feed round failed'))
      .finally(() => {
        running = undefined;
      });
  }, deps.pollMs);

  return {
    async close() {
      closed = true;
      clearInterval(timer);
      await running;
    },
  };
}

/** One round: every network some `pending_transaction` webhook watches; a network no longer watched drops its filter. */
async function pollPendingFeed(deps: PendingFeedDeps, state: FeedState): Promise<void> {
  const all = (await deps.webhooks()).filter((webhook) => webhook.type === 'pending_transaction');
  for (const network of deps.networks) {
    const name = `${network.config.chain}/${network.config.network}`;
    const watching = all.filter((webhook) => webhook.network === name);
    if (watching.length === 0) {
      state.filters.delete(name);
      continue;
    }
    await pollNetwork(deps, state, { network, name, webhooks: watching });
  }
}

/** A network and the `pending_transaction` webhooks that watch it (`name` is its `chain/network`). */
interface WatchedNetwork {
  readonly network: Network;
  readonly name: string;
  readonly webhooks: readonly MatchingWebhook[];
}

async function pollNetwork(deps: PendingFeedDeps, state: FeedState, watched: WatchedNetwork): Promise<void> {
  const { network, name } = watched;
  const hashes = await readNewPendingHashes(state, network, name);
  if (hashes.length === 0) return;
  const transactions = await state.rpc.transactions(network, hashes);
  const facts = { chain: network.config.chain, network: network.config.network, nativeSymbol: network.config.nativeSymbol };
  const tabled = watched.webhooks.filter((webhook) => webhook.addressTable).map((webhook) => webhook.id);
  const parties = [...new Set(transactions.flatMap((tx) => (tx.to ? [tx.from, tx.to] : [tx.from])))];
  const hits = await readWatchedAddresses(deps.db, tabled, parties);
  const outbox = matchPendingTransactions(watched, facts, transactions, hits);
  if (outbox.length === 0) return;
  const { queued } = await deps.db.transaction().execute((trx) => writeOutbox(trx, outbox, 'event'));
  if (queued > 0) deps.queued();
}

/** The hashes seen since the network's filter was last read; none on the round that makes the filter. */
async function readNewPendingHashes(state: FeedState, network: Network, name: string): Promise<string[]> {
  const filter = state.filters.get(name);
  if (!filter) {
    state.filters.set(name, String(await state.rpc.call(network, 'eth_newPendingTransactionFilter', [])));
    return [];
  }
  try {
    return (await state.rpc.call(network, 'eth_getFilterChanges', [filter])) as string[];
  } catch (error) {
    // Filters expire (or live on another upstream of the pool): make a new one.
    state.filters.delete(name);
    throw error;
  }
}

/** An outbox event for each webhook that matches each transaction, keyed by the hash so it is recorded once. */
function matchPendingTransactions(
  watched: WatchedNetwork,
  facts: NetworkFacts,
  transactions: readonly PendingTransaction[],
  hits: ReadonlyMap<string, ReadonlySet<string>>,
): OutboxEvent[] {
  const outbox: OutboxEvent[] = [];
  const none = new Set<string>();
  const filters = watched.webhooks.map((webhook) =>
    compileFilter(webhook.config, facts, webhook.addressTable ? (hits.get(webhook.id) ?? none) : undefined),
  );
  for (const tx of transactions) {
    for (const [index, webhook] of watched.webhooks.entries()) {
      const data = matchPendingTransaction(webhook.config, filters[index]!, tx);
      if (!data) continue;
      outbox.push({
        webhookId: webhook.id,
        accountId: webhook.accountId,
        network: watched.name,
        sourceKey: `pending:${tx.hash}`,
        chainSeq: null,
        type: 'pending_transaction',
        blockNumber: null,
        data,
      });
    }
  }
  return outbox;
}

function createFeedRpc(): FeedRpc {
  let id = 1;
  return {
    async call(network, method, params) {
      const request = JSON.stringify({ jsonrpc: '2.0', id: id++, method, params });
      const text = await network.pool.send(request, readNeedOf(method, params));
      const body = JSON.parse(text) as { result?: unknown; error?: { message: string } };
      if (body.error) throw new Error(`${method}: ${body.error.message}`);
      return body.result;
    },
    async transactions(network, hashes) {
      const batch = hashes.map((hash) => ({ jsonrpc: '2.0', id: id++, method: 'eth_getTransactionByHash', params: [hash] }));
      const need = { ...readNeedOf('eth_getTransactionByHash', [hashes[0]]), methods: batch.map((call) => call.method) };
      const answers = JSON.parse(await network.pool.send(JSON.stringify(batch), need)) as {
        result?: RawPendingTransaction | null;
      }[];
      return answers.flatMap(({ result: tx }) => (tx ? [parsePendingTransaction(tx)] : []));
    },
  };
}

function parsePendingTransaction(tx: RawPendingTransaction): PendingTransaction {
  const big = (hex: string | undefined) => (hex === undefined ? null : BigInt(hex));
  return {
    hash: tx.hash.toLowerCase(),
    from: tx.from.toLowerCase(),
    to: tx.to?.toLowerCase() ?? null,
    value: BigInt(tx.value),
    nonce: Number(BigInt(tx.nonce)),
    input: tx.input.toLowerCase(),
    gas: BigInt(tx.gas),
    gasPrice: big(tx.gasPrice),
    maxFeePerGas: big(tx.maxFeePerGas),
    maxPriorityFeePerGas: big(tx.maxPriorityFeePerGas),
  };
}
