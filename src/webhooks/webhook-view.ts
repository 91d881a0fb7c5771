import type { WebhookRow } from '../db/tables/webhooks.ts';
import type { PayloadFormat } from './payloads.ts';

/** A webhook as the API shows it (the signing secret only in the creation and rotation answers). */
export interface WebhookView {
  id: string;
  url: string;
  chain: string;
  network: string;
  event_type: string;
  config: Record<string, unknown>;
  payload_format: PayloadFormat;
  status: WebhookRow['status'];
  status_reason: string | null;
  created_at: string;
  updated_at: string;
  signing_secret?: string;
}

/** A webhook in a list (spec section 2: exactly these fields). */
export type WebhookListItem = Pick<WebhookView, 'id' | 'url' | 'chain' | 'event_type' | 'status' | 'created_at'>;

export function view(row: WebhookRow): WebhookView {
  return {
    id: row.id,
    url: row.url,
    chain: row.chain,
    network: row.network.split('/')[1] ?? row.network,
    event_type: row.event_type,
    config: row.config,
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
