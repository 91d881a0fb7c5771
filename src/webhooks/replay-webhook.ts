import type { Kysely } from 'kysely';
import type { Principal } from '../auth/principal.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { invalidRequest } from '../core/errors.ts';
import type { WebhookRow } from '../db/tables/webhooks.ts';
import type { Tables } from '../db/tables.ts';
import type { ChainEvent } from '../events/chain-event.ts';
import { deliveryReadiness } from './delivery-readiness.ts';
import type { WebhookEventType } from './event-types.ts';
import { compileMatcher, type MatchedEvent } from './match-event.ts';
import type { Enricher } from './matcher.ts';
import { type OutboxEvent, writeOutbox } from './outbox.ts';
import { eventTypeField, readOwnedWebhook, webhookNetworkFacts } from './owned-webhook.ts';
import { defaultReplayMaxEvents, type ReplayRequest, readReplayEvents, resolveReplayRange, streamReplay } from './replay.ts';
import { readAllWebhookAddresses, storedFilterConfig } from './webhook-addresses.ts';
import type { WebhookConfig } from './webhook-config.ts';

export interface ReplayDeps {
  db: Kysely<Tables>;
  chains: ChainRegistry;
  enricher: Enricher;
  /** Something was queued in this process (its workers look at once). */
  queued: () => void;
  /** Replay's cap and page size (`webhooks.replay_max_events`, `webhooks.replay_page_events`). */
  replay?: { maxEvents: number; pageEvents: number };
}

/**
 * Every event of the range that the webhook's filter matches, queued again in chain order with the
 * same ids, a page at a time; past the replay cap it stops at a block boundary and says where to go on.
 */
export async function replayWebhook(deps: ReplayDeps, principal: Principal, id: string, request: ReplayRequest) {
  const { db } = deps;
  const row = await readOwnedWebhook(db, principal, id);
  const type = eventTypeField(row.event_type);
  if (type === 'pending_transaction')
    throw invalidRequest('id', 'pending transactions are not kept: a pending_transaction webhook cannot be replayed');
  const range = await resolveReplayRange(db, row.network, request);
  // A table list is read whole for a replay (at most 100,000 addresses, for the replay's length only).
  const watched = row.address_filter ? await readAllWebhookAddresses(db, row.id) : undefined;
  const matcher = compileMatcher(type, storedFilterConfig(row), webhookNetworkFacts(deps.chains, row), watched);
  const outcome = await streamReplay({
    pages: readReplayEvents(db, row.network, range, deps.replay?.pageEvents),
    match: (event) => {
      const match = matcher(event);
      return match ? { event, match } : undefined;
    },
    write: async (matches) => {
      const outbox = matches.map((matched) => replayOutboxEvent(row, type, matched));
      await enrichOutbox(outbox, deps.enricher);
      await db.transaction().execute((trx) => writeOutbox(trx, outbox, 'replay'));
      deps.queued();
    },
    maxEvents: deps.replay?.maxEvents ?? defaultReplayMaxEvents,
  });
  return {
    id,
    from_block: range.fromBlock,
    to_block: range.toBlock,
    queued: outcome.queued,
    complete: outcome.nextFromBlock === undefined,
    next_from_block: outcome.nextFromBlock ?? null,
  };
}

/** A replayed match as an outbox event; already recorded events keep their data (the payload they were first sent with). */
function replayOutboxEvent(
  row: WebhookRow,
  type: WebhookEventType,
  { event, match }: { event: ChainEvent; match: MatchedEvent },
): OutboxEvent {
  const confirmations = (row.config as WebhookConfig).confirmations;
  return {
    webhookId: row.id,
    accountId: row.account_id,
    network: row.network,
    sourceKey: event.seq,
    chainSeq: event.seq,
    type,
    blockNumber: event.blockNumber,
    data: match.nft ? { ...match.data, metadata: null } : { ...match.data },
    ...deliveryReadiness(confirmations, event.blockNumber),
  };
}

async function enrichOutbox(outbox: OutboxEvent[], enricher: Enricher): Promise<void> {
  const byNetwork = new Map<string, Set<string>>();
  for (const event of outbox) {
    const contract =
      event.type === 'token_transfer' || (event.type === 'address_activity' && event.data.category === 'token')
        ? (event.data.contract as string)
        : undefined;
    if (contract) byNetwork.set(event.network, (byNetwork.get(event.network) ?? new Set()).add(contract));
  }
  for (const [network, contracts] of byNetwork) {
    const facts = await enricher.tokens(network, [...contracts]);
    for (const event of outbox) {
      if (event.network !== network) continue;
      const token = facts.get(event.data.contract as string);
      if (token === undefined) continue;
      if (event.type === 'address_activity') event.data.asset = token?.symbol ?? null;
      else Object.assign(event.data, { symbol: token?.symbol ?? null, decimals: token?.decimals ?? null });
    }
  }
}
