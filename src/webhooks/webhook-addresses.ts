import { type Kysely, sql } from 'kysely';
import { invalidRequest } from '../core/errors.ts';
import type { WebhookRow } from '../db/tables/webhooks.ts';
import type { Tables } from '../db/tables.ts';
import { assertNoPreviousReleaseMatcher } from './previous-release-guard.ts';
import { maxWebhookAddresses, type WebhookConfig } from './webhook-config.ts';

/** Addresses one call of `PATCH /v1/webhooks/{id}/addresses` adds and removes, each list at most. */
export const maxAddressesPerUpdate = 1_000;
/** Rows an insert or delete of a long list takes at once (Postgres binds at most 65,535 parameters). */
const chunk = 5_000;

/** What a membership test needs: a Set, or a round's hits looked up in the table. */
export interface AddressSet {
  has(address: string): boolean;
}

/** Adds and removes addresses (lower-case, checked) of a webhook in `trx`; returns the count after. */
export async function changeWebhookAddresses(
  trx: Kysely<Tables>,
  webhookId: string,
  change: { add: readonly string[]; remove: readonly string[] },
): Promise<number> {
  await assertNoPreviousReleaseMatcher(trx);
  // The row lock orders concurrent changes of one webhook, so the count stays the table's.
  const webhook = await trx
    .selectFrom('webhooks')
    .select(['address_filter', 'config'])
    .where('id', '=', webhookId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  let delta = 0;
  // Written by the previous release (a rolling upgrade): its inline list moves to the table first.
  const inline = webhook.address_filter ? [] : ((webhook.config.addresses as string[] | undefined) ?? []);
  if (inline.length > 0) delta += await insertAddresses(trx, webhookId, inline);
  for (let at = 0; at < change.remove.length; at += chunk) {
    const removed = await trx
      .deleteFrom('webhook_addresses')
      .where('webhook_id', '=', webhookId)
      .where('address', 'in', change.remove.slice(at, at + chunk))
      .executeTakeFirst();
    delta -= Number(removed.numDeletedRows);
  }
  delta += await insertAddresses(trx, webhookId, change.add);
  const row = await trx
    .updateTable('webhooks')
    .set((eb) => ({ address_count: eb('address_count', '+', delta), address_filter: true, updated_at: new Date() }))
    .where('id', '=', webhookId)
    .returning('address_count')
    .executeTakeFirstOrThrow();
  if (row.address_count > maxWebhookAddresses) {
    // Thrown inside the caller's transaction: nothing of this change is kept.
    throw invalidRequest('add', `would make ${row.address_count} addresses; a webhook watches at most ${maxWebhookAddresses}`);
  }
  return row.address_count;
}

/** Inserts the ones not there yet; returns how many were new. */
async function insertAddresses(trx: Kysely<Tables>, webhookId: string, addresses: readonly string[]): Promise<number> {
  let added = 0;
  for (let at = 0; at < addresses.length; at += chunk) {
    const rows = addresses.slice(at, at + chunk).map((address) => ({ webhook_id: webhookId, address }));
    const result = await trx
      .insertInto('webhook_addresses')
      .values(rows)
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    added += Number(result.numInsertedOrUpdatedRows ?? 0n);
  }
  return added;
}

/** Replaces a webhook's whole list (create, or PATCH of `config`): an empty list means no address filter. */
export async function replaceWebhookAddresses(trx: Kysely<Tables>, webhookId: string, addresses: readonly string[]) {
  await trx.deleteFrom('webhook_addresses').where('webhook_id', '=', webhookId).execute();
  await trx.updateTable('webhooks').set({ address_count: 0, address_filter: false }).where('id', '=', webhookId).execute();
  if (addresses.length > 0) await changeWebhookAddresses(trx, webhookId, { add: addresses, remove: [] });
}

/**
 * Sets a webhook's whole list (Alchemy's `PUT /api/update-webhook-addresses`): unlike a config without
 * `addresses`, an empty list watches no address. Returns the count after.
 */
export async function setWebhookAddresses(trx: Kysely<Tables>, webhookId: string, addresses: readonly string[]) {
  await trx.selectFrom('webhooks').select('id').where('id', '=', webhookId).forUpdate().executeTakeFirstOrThrow();
  await trx.deleteFrom('webhook_addresses').where('webhook_id', '=', webhookId).execute();
  await trx.updateTable('webhooks').set({ address_count: 0, address_filter: true }).where('id', '=', webhookId).execute();
  return changeWebhookAddresses(trx, webhookId, { add: addresses, remove: [] });
}

/** One page of a webhook's addresses in address order, after `after` (exclusive). */
export async function readWebhookAddressPage(
  db: Kysely<Tables>,
  webhookId: string,
  page: { limit: number; after?: string },
): Promise<{ addresses: string[]; next: string | null }> {
  let query = db.selectFrom('webhook_addresses').select('address').where('webhook_id', '=', webhookId);
  if (page.after !== undefined) query = query.where('address', '>', page.after);
  const rows = await query
    .orderBy('address')
    .limit(page.limit + 1)
    .execute();
  const addresses = rows.slice(0, page.limit).map((row) => row.address);
  return { addresses, next: rows.length > page.limit ? addresses[addresses.length - 1]! : null };
}

/** Every address of a webhook (replay, which reads a range of events with one matcher). */
export async function readAllWebhookAddresses(db: Kysely<Tables>, webhookId: string): Promise<Set<string>> {
  const rows = await db.selectFrom('webhook_addresses').select('address').where('webhook_id', '=', webhookId).execute();
  return new Set(rows.map((row) => row.address));
}

/**
 * Which of `addresses` each of `webhookIds` watches: one query on the address index, however long the
 * lists are, so a round holds only its own hits in memory (not 50 lists of 100,000).
 */
export async function readWatchedAddresses(
  db: Kysely<Tables>,
  webhookIds: readonly string[],
  addresses: readonly string[],
): Promise<Map<string, Set<string>>> {
  const hits = new Map<string, Set<string>>();
  if (webhookIds.length === 0 || addresses.length === 0) return hits;
  const rows = await db
    .selectFrom('webhook_addresses')
    .select(['webhook_id', 'address'])
    .where(sql<boolean>`address = any(${sql.val(addresses)}::text[])`)
    .where(sql<boolean>`webhook_id = any(${sql.val(webhookIds)}::text[])`)
    .execute();
  for (const row of rows) {
    const set = hits.get(row.webhook_id);
    if (set) set.add(row.address);
    else hits.set(row.webhook_id, new Set([row.address]));
  }
  return hits;
}

/**
 * A stored webhook's filter: its `config`, less `addresses` when the list is in the table (the
 * migration left a copy in the JSON for the previous release).
 */
export function storedFilterConfig(row: Pick<WebhookRow, 'config' | 'address_filter'>): WebhookConfig {
  if (!row.address_filter) return row.config as WebhookConfig;
  const { addresses: _inTable, ...rest } = row.config;
  return rest as WebhookConfig;
}

/**
 * The filter a test event is built from: the first address of the table stands for the list (an
 * empty list gives a sample of any address: a test event shows the shape, not a match).
 */
export async function sampleFilterConfig(db: Kysely<Tables>, row: WebhookRow): Promise<WebhookConfig> {
  const config = storedFilterConfig(row);
  if (!row.address_filter) return config;
  return { ...config, addresses: (await readWebhookAddressPage(db, row.id, { limit: 1 })).addresses };
}
