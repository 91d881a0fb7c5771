import type { Kysely } from 'kysely';
import type { Principal } from '../auth/principal.ts';
import { invalidRequest, notFound } from '../core/errors.ts';
import type { WebhookRow } from '../db/tables/webhooks.ts';
import type { Tables } from '../db/tables.ts';
import {
  changeNftFilterPairs,
  type NftFilterKeys,
  type NftFilterPair,
  nftFilterPairAt,
  nftFilterPairCount,
} from './nft-filter-pairs.ts';
import { readOwnedWebhook } from './owned-webhook.ts';

function nftKeysOf(row: WebhookRow, field: string): NftFilterKeys {
  if (row.event_type !== 'nft_transfer') throw invalidRequest(field, `a ${row.event_type} webhook has no NFT filters`);
  return row.config as NftFilterKeys;
}

/** A page of an nft_transfer webhook's filter as pairs; `after` is the number of pairs already read. */
export async function readNftFilterPage(
  db: Kysely<Tables>,
  principal: Principal,
  id: string,
  page: { limit: number; after: number },
): Promise<{ pairs: NftFilterPair[]; total: number; next: string | null }> {
  const keys = nftKeysOf(await readOwnedWebhook(db, principal, id), 'webhook_id');
  const total = nftFilterPairCount(keys);
  const end = Math.min(total, page.after + page.limit);
  const pairs: NftFilterPair[] = [];
  for (let index = page.after; index < end; index++) pairs.push(nftFilterPairAt(keys, index));
  return { pairs, total, next: end < total ? String(end) : null };
}

/**
 * Adds and removes pairs of an nft_transfer webhook's filter (its `contracts` and `token_ids`; every
 * other key, and its address list, as they were), in one transaction with the row locked so two
 * changes at once both apply. The matcher takes it from its next round (`updated_at` changed).
 */
export async function changeNftFilters(
  db: Kysely<Tables>,
  principal: Principal,
  id: string,
  change: { add: readonly NftFilterPair[]; remove: readonly NftFilterPair[] },
): Promise<NftFilterKeys> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', principal.accountId)
      .where('deleted_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw notFound(`webhook '${id}' does not exist`);
    const next = changeNftFilterPairs(nftKeysOf(row, 'webhook_id'), change.add, change.remove);
    const { token_ids: _previous, ...rest } = row.config;
    const config = { ...rest, ...next };
    await trx
      .updateTable('webhooks')
      .set({ config: JSON.stringify(config), updated_at: new Date() })
      .where('id', '=', id)
      .execute();
    return next;
  });
}
