import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.ts';
import { parseEventType, type WebhookEventType } from './event-types.ts';
import { compileMatcher, type EventMatcher, type NetworkFacts } from './match-event.ts';
import { storedFilterConfig } from './webhook-addresses.ts';
import type { WebhookConfig } from './webhook-config.ts';

/** A webhook as the matcher holds it: its filter compiled once. */
export interface MatchingWebhook {
  readonly id: string;
  readonly accountId: string;
  readonly network: string;
  readonly type: WebhookEventType;
  readonly config: WebhookConfig;
  readonly facts: NetworkFacts;
  readonly startSeq: bigint;
  /** Its addresses are in `webhook_addresses`: each round compiles its matcher with the round's hits (matcher.ts). */
  readonly addressTable: boolean;
  /** The matcher of a webhook without a table list (`addressTable` false). */
  readonly matcher: EventMatcher;
  readonly updatedAt: number;
}

/**
 * The webhooks that record events (active and paused; disabled ones record nothing), reloaded one by
 * one when their `updated_at` changes, so a round with thousands of webhooks reads two columns of each.
 */
export function createWebhookCache(db: Kysely<Tables>, factsOf: (network: string) => NetworkFacts | undefined) {
  const cache = new Map<string, MatchingWebhook>();

  async function current(): Promise<MatchingWebhook[]> {
    const heads = await db.selectFrom('webhooks').select(['id', 'updated_at']).where('status', '<>', 'disabled').execute();
    const live = new Set(heads.map((head) => head.id));
    for (const id of cache.keys()) if (!live.has(id)) cache.delete(id);
    const stale = heads
      .filter((head) => cache.get(head.id)?.updatedAt !== new Date(head.updated_at).getTime())
      .map((head) => head.id);
    for (let at = 0; at < stale.length; at += 500) {
      const rows = await db
        .selectFrom('webhooks')
        .select(['id', 'account_id', 'network', 'event_type', 'config', 'address_filter', 'start_seq', 'updated_at'])
        .where('id', 'in', stale.slice(at, at + 500))
        .execute();
      for (const row of rows) {
        const type = parseEventType(row.event_type);
        const facts = factsOf(row.network);
        // A webhook of a network this process does not know (removed from the config) matches nothing.
        if (!type || !facts) continue;
        const config = storedFilterConfig(row);
        cache.set(row.id, {
          id: row.id,
          accountId: row.account_id,
          network: row.network,
          type,
          config,
          facts,
          startSeq: BigInt(row.start_seq),
          addressTable: row.address_filter,
          matcher: compileMatcher(type, config, facts),
          updatedAt: new Date(row.updated_at).getTime(),
        });
      }
    }
    return [...cache.values()];
  }

  return { current };
}
