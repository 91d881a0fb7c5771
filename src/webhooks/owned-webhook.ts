import type { Kysely } from 'kysely';
import type { Principal } from '../auth/principal.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { invalidRequest, notFound } from '../core/errors.ts';
import type { WebhookRow } from '../db/tables/webhooks.ts';
import type { Tables } from '../db/tables.ts';
import { acceptedEventTypeNames, parseEventType, type WebhookEventType } from './event-types.ts';
import type { NetworkFacts } from './match-event.ts';

/** The caller's webhook `id`, or not found. */
export async function readOwnedWebhook(db: Kysely<Tables>, principal: Principal, id: string): Promise<WebhookRow> {
  const row = await db
    .selectFrom('webhooks')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', principal.accountId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  // Another account's webhook, or one deleted (its rows not yet removed), is as absent as one that never existed.
  if (!row) throw notFound(`webhook '${id}' does not exist`);
  return row;
}

/** The stored event type named by `event_type` (either variant), or an invalid request naming the accepted ones. */
export function eventTypeField(input: string): WebhookEventType {
  const type = parseEventType(input);
  if (!type) throw invalidRequest('event_type', `unknown event type '${input}'; one of ${acceptedEventTypeNames.join(', ')}`);
  return type;
}

/** The chain, network and native symbol a webhook's matcher needs. */
export function webhookNetworkFacts(chains: ChainRegistry, row: Pick<WebhookRow, 'chain' | 'network'>): NetworkFacts {
  const network = chains.get(row.chain, row.network.split('/')[1] ?? '');
  return { chain: network.config.chain, network: network.config.network, nativeSymbol: network.config.nativeSymbol };
}
