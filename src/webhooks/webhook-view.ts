import type { Kysely } from 'kysely';
import type { WebhookRow } from '../db/tables/webhooks.ts';
import type { Tables } from '../db/tables.ts';
import type { PayloadFormat } from './payloads.ts';
import { readWebhookAddressPage, storedFilterConfig } from './webhook-addresses.ts';

/**
 * A webhook's answer carries `config.addresses` inline up to this many (~45 KB); a longer list is
 * read with `GET /v1/webhooks/{id}/addresses`, and `address_count` always says how many there are.
 */
export const inlineAddressLimit = 1_000;

/** A webhook as the API shows it (the signing secret only in the creation and rotation answers). */
export interface WebhookView {
  id: string;
  url: string;
  chain: string;
  network: string;
  event_type: string;
  config: Record<string, unknown>;
  /** How many addresses the webhook watches (`config.addresses` is left out past `inlineAddressLimit`). */
  address_count: number;
  payload_format: PayloadFormat;
  status: WebhookRow['status'];
  status_reason: string | null;
  created_at: string;
  updated_at: string;
  signing_secret?: string;
}

/** A webhook in a list (spec section 2: exactly these fields). */
export type WebhookListItem = Pick<WebhookView, 'id' | 'url' | 'chain' | 'event_type' | 'status' | 'created_at'>;

/**
 * The API's view of a stored webhook. A list in the table shows as `config.addresses` only when
 * `addresses` (read by `readWebhookView`) is given: the admin list leaves it out and says `address_count`.
 */
export function view(row: WebhookRow, addresses?: readonly string[]): WebhookView {
  const config: Record<string, unknown> = { ...storedFilterConfig(row) };
  if (row.address_filter && addresses) config.addresses = addresses;
  const count = row.address_filter ? row.address_count : ((row.config.addresses as unknown[] | undefined)?.length ?? 0);
  return {
    id: row.id,
    url: row.url,
    chain: row.chain,
    network: row.network.split('/')[1] ?? row.network,
    event_type: row.event_type,
    config,
    address_count: count,
    payload_format: row.payload_format,
    status: row.status,
    status_reason: row.status_reason,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export function listItem(row: WebhookRow): WebhookListItem {
  const { id, url, chain, event_type, status, created_at } = view(row);
  return { id, url, chain, event_type, status, created_at };
}

/** `view` with a table list inline when it has at most `inlineAddressLimit` addresses (in address order). */
export async function readWebhookView(db: Kysely<Tables>, row: WebhookRow): Promise<WebhookView> {
  if (!row.address_filter || row.address_count > inlineAddressLimit) return view(row);
  const { addresses } = await readWebhookAddressPage(db, row.id, { limit: inlineAddressLimit });
  return view(row, addresses);
}
