import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Principal } from '../auth/principal.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { AppError } from '../core/errors.ts';
import type { WebhookRow } from '../db/tables/webhooks.ts';
import type { Tables } from '../db/tables.ts';
import { readIndexHead } from '../indexer/index-head.ts';
import type { WebhookEventType } from './event-types.ts';
import { compileFilter, compileMatcher, matchPendingTransaction } from './match-event.ts';
import type { Enricher } from './matcher.ts';
import { type OutboxEvent, writeOutbox } from './outbox.ts';
import { eventTypeField, readOwnedWebhook, webhookNetworkFacts } from './owned-webhook.ts';
import { sampleChainEvent, samplePendingTransaction } from './sample-event.ts';
import { sampleFilterConfig } from './webhook-addresses.ts';

export interface TestEventDeps {
  db: Kysely<Tables>;
  chains: ChainRegistry;
  enricher: Enricher;
  /** Something was queued in this process (its workers look at once). */
  queued: () => void;
}

/** Queues a test event built by the webhook's own matcher (so shaped like a real one), marked `test: true`. */
export async function sendTestEvent(
  deps: TestEventDeps,
  principal: Principal,
  id: string,
): Promise<{ event_id: string; delivery_id: string }> {
  const { db } = deps;
  const row = await readOwnedWebhook(db, principal, id);
  if (row.status === 'disabled') throw new AppError('invalid_request', `webhook '${id}' is disabled: enable it before testing`);
  const type = eventTypeField(row.event_type);
  const { data, blockNumber } = await buildTestEventData(deps, row, type);
  const event: OutboxEvent = {
    webhookId: id,
    accountId: row.account_id,
    network: row.network,
    sourceKey: `test:${randomBytes(8).toString('hex')}`,
    chainSeq: null,
    type,
    blockNumber,
    test: true,
    data,
  };
  const eventId = await db.transaction().execute(async (trx) => (await writeOutbox(trx, [event], 'test')).eventIds[0]!);
  const delivery = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('event_id', '=', eventId)
    .executeTakeFirstOrThrow();
  deps.queued();
  return { event_id: eventId, delivery_id: delivery.id };
}

/** A sample event of the webhook's type run through its matcher, at the indexed head for chain events. */
async function buildTestEventData(
  deps: Pick<TestEventDeps, 'db' | 'chains' | 'enricher'>,
  row: WebhookRow,
  type: WebhookEventType,
): Promise<{ data: Record<string, unknown>; blockNumber: number | null }> {
  const config = await sampleFilterConfig(deps.db, row);
  const networkFacts = webhookNetworkFacts(deps.chains, row);
  let data: Record<string, unknown> | undefined;
  let blockNumber: number | null = null;
  if (type === 'pending_transaction') {
    data = matchPendingTransaction(config, compileFilter(config, networkFacts), samplePendingTransaction(config));
  } else {
    const block = await readHeadBlock(deps.db, row.network);
    blockNumber = block.number;
    const match = compileMatcher(type, config, networkFacts)(sampleChainEvent(type, config, row.network, block));
    if (match) {
      data = { ...match.data };
      if (match.token) {
        const token = (await deps.enricher.tokens(row.network, [match.token])).get(match.token) ?? null;
        if (type === 'address_activity') data.asset = token?.symbol ?? null;
        else Object.assign(data, { symbol: token?.symbol ?? 'TEST', decimals: token?.decimals ?? 18 });
      }
      if (match.nft) data.metadata = null;
    }
  }
  if (!data) throw new AppError('internal_error', `no test event could be built for ${type}`);
  return { data, blockNumber };
}

/** The network's indexed head, or block 0 now when nothing is indexed yet. */
async function readHeadBlock(db: Kysely<Tables>, network: string): Promise<{ number: number; hash: string; timestamp: string }> {
  const head = await readIndexHead(db, network);
  return head
    ? { number: head.number, hash: head.hash, timestamp: head.timestamp.toISOString() }
    : { number: 0, hash: `0x${'0'.repeat(64)}`, timestamp: new Date().toISOString() };
}
