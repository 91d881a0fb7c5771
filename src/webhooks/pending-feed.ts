import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Network } from '../chains/registry.ts';
import type { Tables } from '../db/tables.ts';
import { matchPendingTransaction, type PendingTransaction } from './match-event.ts';
import { type OutboxEvent, writeOutbox } from './outbox.ts';
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

/**
 * `pending_transaction` webhooks: while one exists for a network, its upstream's pending-transaction
 * filter (`eth_newPendingTransactionFilter`) is read every `pollMs`, each new transaction fetched and
 * matched, and the matches queued. A hash is recorded once per webhook (its source key), so several
 * processes reading the same mempool deliver it once.
 */
export function startPendingFeed(deps: {
  db: Kysely<Tables>;
  networks: readonly Network[];
  webhooks: () => Promise<MatchingWebhook[]>;
  pollMs: number;
  queued: () => void;
  logger: Logger;
}): { close(): Promise<void> } {
  const filters = new Map<string, string>();
  let closed = false;
  let running: Promise<void> | undefined;
  let id = 1;

  const rpc = async (network: Network, method: string, params: unknown[]) => {
    const text = await network.upstream.send(JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }));
    const body = JSON.parse(text) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };

  async function poll() {
    const all = (await deps.webhooks()).filter((webhook) => webhook.type === 'pending_transaction');
    for (const network of deps.networks) {
      const name = `${network.config.chain}/${network.config.network}`;
      const watching = all.filter((webhook) => webhook.network === name);
      if (watching.length === 0) {
        filters.delete(name);
        continue;
      }
      let filter = filters.get(name);
      if (!filter) {
        filter = String(await rpc(network, 'eth_newPendingTransactionFilter', []));
        filters.set(name, filter);
        continue;
      }
      let hashes: string[];
      try {
        hashes = (await rpc(network, 'eth_getFilterChanges', [filter])) as string[];
      } catch (error) {
        // Filters expire (or live on another upstream of the pool): make a new one.
        filters.delete(name);
        throw error;
      }
      if (hashes.length === 0) continue;
      const transactions = await fetchTransactions(network, hashes);
      const facts = { chain: network.config.chain, network: network.config.network, nativeSymbol: network.config.nativeSymbol };
      const outbox: OutboxEvent[] = [];
      for (const tx of transactions) {
        for (const webhook of watching) {
          const data = matchPendingTransaction(webhook.config, facts, tx);
          if (!data) continue;
          outbox.push({
            webhookId: webhook.id,
            accountId: webhook.accountId,
            network: name,
            sourceKey: `pending:${tx.hash}`,
            chainSeq: null,
            type: 'pending_transaction',
            blockNumber: null,
            data,
          });
        }
      }
      if (outbox.length === 0) continue;
      const { queued } = await deps.db.transaction().execute((trx) => writeOutbox(trx, outbox, 'event'));
      if (queued > 0) deps.queued();
    }
  }

  async function fetchTransactions(network: Network, hashes: readonly string[]): Promise<PendingTransaction[]> {
    const batch = hashes.map((hash) => ({ jsonrpc: '2.0', id: id++, method: 'eth_getTransactionByHash', params: [hash] }));
    const answers = JSON.parse(await network.upstream.send(JSON.stringify(batch))) as { result?: RawPendingTransaction | null }[];
    const big = (hex: string | undefined) => (hex === undefined ? null : BigInt(hex));
    return answers.flatMap(({ result: tx }) =>
      tx
        ? [
            {
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
            },
          ]
        : [],
    );
  }

  const timer = setInterval(() => {
    if (closed || running) return;
    running = poll()
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
