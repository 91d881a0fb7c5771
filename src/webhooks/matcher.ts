import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import { anyOf } from '../db/any-of.ts';
import type { Tables } from '../db/tables.ts';
import type { ChainEvent } from '../events/chain-event.ts';
import { readChainEvents } from '../events/store.ts';
import { deliveryReadiness } from './delivery-readiness.ts';
import { addressesOfEvent, compileMatcher, type EventMatcher, type MatchedEvent } from './match-event.ts';
import { type OutboxEvent, writeOutbox } from './outbox.ts';
import { readWatchedAddresses } from './webhook-addresses.ts';
import type { MatchingWebhook } from './webhook-cache.ts';

/** Token and NFT facts the payloads name; looked up once per round for every event that needs them. */
export interface Enricher {
  tokens(network: string, contracts: readonly string[]): Promise<Map<string, { symbol: string; decimals: number } | null>>;
  nfts(network: string, keys: readonly { contract: string; tokenId: string }[]): Promise<Map<string, Record<string, unknown>>>;
}

const cursorName = 'chain_events';
/** One matcher in the deployment at a time: every round takes this transaction-scoped advisory lock. */
const matcherLockKey = 0x7765_6268; // 'webh'
const pageSize = 2000;

export interface MatchRoundResult {
  /** false: another process holds the matcher lock. */
  readonly ran: boolean;
  readonly events: number;
  readonly queued: number;
  /** More events are waiting (the page was full). */
  readonly more: boolean;
}

/**
 * One matching round: in one transaction, reads the chain events after the stored cursor, turns the
 * ones a webhook wants into webhook events and queued deliveries (the outbox), handles reorged events,
 * and moves the cursor. Either all of it commits or none: nothing is matched twice or skipped.
 */
export async function matchRound(deps: {
  db: Kysely<Tables>;
  webhooks: () => Promise<MatchingWebhook[]>;
  enricher: Enricher;
  logger: Logger;
}): Promise<MatchRoundResult> {
  return deps.db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${matcherLockKey}) as locked`.execute(trx);
    if (!rows[0]?.locked) return { ran: false, events: 0, queued: 0, more: false };
    const afterSeq = await readCursor(trx);
    const events = await readChainEvents(trx, { afterSeq, limit: pageSize });
    if (events.length === 0) return { ran: true, events: 0, queued: 0, more: false };
    const webhooks = await deps.webhooks();
    const byNetwork = groupBy(webhooks, (webhook) => webhook.network);
    const matcherOf = await roundMatchers(trx, webhooks, events);

    const matched: { webhook: MatchingWebhook; event: ChainEvent; match: MatchedEvent }[] = [];
    const removals: ChainEvent[] = [];
    for (const event of events) {
      if (event.removed) {
        removals.push(event);
        continue;
      }
      const seq = BigInt(event.seq);
      for (const webhook of byNetwork.get(event.network) ?? []) {
        if (seq <= webhook.startSeq) continue;
        const match = matcherOf(webhook)(event);
        if (match) matched.push({ webhook, event, match });
      }
    }
    const outbox = await enrich(matched, deps.enricher);
    let queued = (await writeOutbox(trx, outbox, 'event')).queued;
    if (removals.length > 0) queued += await handleRemovals(trx, removals);
    await trx
      .updateTable('webhook_matcher_cursor')
      // The round count tells this release's moves from a previous release's (migration 2026-12-04T0600).
      .set({ seq: events[events.length - 1]!.seq, matcher_round: sql<string>`matcher_round + 1` })
      .where('name', '=', cursorName)
      .execute();
    return { ran: true, events: events.length, queued, more: events.length === pageSize };
  });
}

/**
 * Each webhook's matcher for this round. A webhook whose addresses are in the table gets one that
 * knows which of the round's addresses it watches: one indexed query for every such webhook, so
 * memory holds a round's hits, not the lists (50 webhooks of 100,000 addresses would be 5 million
 * strings, about 1 GB), and a change made through any API node applies from the next round.
 */
async function roundMatchers(
  trx: Kysely<Tables>,
  webhooks: readonly MatchingWebhook[],
  events: readonly ChainEvent[],
): Promise<(webhook: MatchingWebhook) => EventMatcher> {
  const tabled = webhooks.filter((webhook) => webhook.addressTable);
  if (tabled.length === 0) return (webhook) => webhook.matcher;
  const addresses = [...new Set(events.flatMap((event) => (event.removed ? [] : addressesOfEvent(event))))];
  const hits = await readWatchedAddresses(
    trx,
    tabled.map((webhook) => webhook.id),
    addresses,
  );
  const none = new Set<string>();
  const matchers = new Map(
    tabled.map((webhook) => [
      webhook.id,
      compileMatcher(webhook.type, webhook.config, webhook.facts, hits.get(webhook.id) ?? none),
    ]),
  );
  return (webhook) => matchers.get(webhook.id) ?? webhook.matcher;
}

/** The cursor starts at the newest event when first needed: webhooks created later begin there anyway. */
async function readCursor(trx: Kysely<Tables>): Promise<string> {
  const row = await trx.selectFrom('webhook_matcher_cursor').select('seq').where('name', '=', cursorName).executeTakeFirst();
  if (row) return String(row.seq);
  const newest = await trx
    .selectFrom('chain_events')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .executeTakeFirst();
  const seq = newest?.seq ? String(newest.seq) : '0';
  const oldestWebhook = await trx
    .selectFrom('webhooks')
    .select((eb) => eb.fn.min('start_seq').as('seq'))
    .executeTakeFirst();
  const start = oldestWebhook?.seq ? String(oldestWebhook.seq) : seq;
  await trx.insertInto('webhook_matcher_cursor').values({ name: cursorName, seq: start }).execute();
  return start;
}

async function enrich(
  matched: readonly { webhook: MatchingWebhook; event: ChainEvent; match: MatchedEvent }[],
  enricher: Enricher,
): Promise<OutboxEvent[]> {
  const tokenFacts = new Map<string, Map<string, { symbol: string; decimals: number } | null>>();
  const nftFacts = new Map<string, Map<string, Record<string, unknown>>>();
  for (const [network, items] of groupBy(matched, (item) => item.event.network)) {
    const tokens = [...new Set(items.flatMap((item) => (item.match.token ? [item.match.token] : [])))];
    if (tokens.length > 0) tokenFacts.set(network, await enricher.tokens(network, tokens));
    const nfts = items.flatMap((item) => (item.match.nft ? [item.match.nft] : []));
    if (nfts.length > 0) nftFacts.set(network, await enricher.nfts(network, nfts));
  }
  return matched.map(({ webhook, event, match }) => {
    const data = { ...match.data };
    if (match.token) {
      const facts = tokenFacts.get(event.network)?.get(match.token) ?? null;
      if (webhook.type === 'address_activity') data.asset = facts?.symbol ?? null;
      else {
        data.symbol = facts?.symbol ?? null;
        data.decimals = facts?.decimals ?? null;
      }
    }
    if (match.nft) data.metadata = nftFacts.get(event.network)?.get(`${match.nft.contract}/${match.nft.tokenId}`) ?? null;
    return {
      webhookId: webhook.id,
      accountId: webhook.accountId,
      network: webhook.network,
      sourceKey: event.seq,
      chainSeq: event.seq,
      type: webhook.type,
      blockNumber: event.blockNumber,
      data,
      ...deliveryReadiness(webhook.config.confirmations, event.blockNumber),
    };
  });
}

/**
 * A reorg took back events. A webhook event of one that was never sent is cancelled; one that was
 * sent (or tried) gets a new event with `removed: true` naming it, queued like any other.
 */
async function handleRemovals(trx: Kysely<Tables>, removals: readonly ChainEvent[]): Promise<number> {
  const originals = await trx
    .selectFrom('webhook_events as e')
    .innerJoin('webhooks as w', 'w.id', 'e.webhook_id')
    .select([
      'e.id',
      'e.webhook_id',
      'e.chain_seq',
      'e.event_type',
      'e.block_number',
      'e.data',
      'w.account_id',
      'w.network',
      'w.status',
    ])
    .where(
      anyOf(
        'e.chain_seq',
        removals.map((event) => event.removesSeq!),
        'int8',
      ),
    )
    .where('e.removed', '=', false)
    .execute();
  if (originals.length === 0) return 0;
  // A round's removals times the webhooks that matched them: 2,000 x 50 ids is past what `in` can take.
  const ids = originals.map((row) => row.id);
  const sent = await sentOrInFlight(trx, ids);
  await trx
    .updateTable('webhook_deliveries')
    .set({ status: 'cancelled', note: 'cancelled: a reorg removed the block before the event was sent', updated_at: new Date() })
    .where(anyOf('id', sent.cancellable))
    .execute();
  const removalEvents: OutboxEvent[] = originals
    .filter((row) => sent.events.has(row.id) && row.status !== 'disabled')
    .map((row) => ({
      webhookId: row.webhook_id,
      accountId: row.account_id,
      network: row.network,
      sourceKey: `removal:${row.chain_seq}`,
      chainSeq: null,
      type: row.event_type as OutboxEvent['type'],
      blockNumber: row.block_number === null ? null : Number(row.block_number),
      removed: true,
      removesEventId: row.id,
      data: row.data,
    }));
  return (await writeOutbox(trx, removalEvents, 'event')).queued;
}

/**
 * Which of the reorged events were sent, and which deliveries to cancel. A delivery a worker has
 * claimed is locked for as long as its POST takes (up to the timeout, times a round of them): it is
 * being sent, so its event counts as sent, and it is not waited for. Waiting held every webhook's
 * matching behind one slow receiver (the statement timed out and the round failed again and again),
 * and reading the row before the worker committed lost the removal of an event that went out.
 */
async function sentOrInFlight(
  trx: Kysely<Tables>,
  eventIds: readonly string[],
): Promise<{ events: Set<string>; cancellable: string[] }> {
  const inIds = anyOf('event_id', eventIds);
  const free = await trx
    .selectFrom('webhook_deliveries')
    .select(['id', 'event_id', 'attempts', 'status'])
    .where(inIds)
    .forUpdate()
    .skipLocked()
    .execute();
  const freeIds = new Set(free.map((row) => row.id));
  const all = await trx.selectFrom('webhook_deliveries').select(['id', 'event_id']).where(inIds).execute();
  const events = new Set(all.filter((row) => !freeIds.has(row.id)).map((row) => row.event_id));
  const cancellable: string[] = [];
  for (const row of free) {
    if (row.attempts > 0 || row.status === 'succeeded' || row.status === 'failed') events.add(row.event_id);
    if (row.status === 'pending') cancellable.push(row.id);
  }
  return { events, cancellable };
}

/** Map.groupBy, which Node 20 lacks. */
function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const name = key(item);
    const group = groups.get(name);
    if (group) group.push(item);
    else groups.set(name, [item]);
  }
  return groups;
}
