import { type Kysely, sql } from 'kysely';
import type { Tables } from '../../src/db/tables.ts';

/**
 * An account (`acc_1`) and webhooks written straight to the tables, for tests of the webhook queries
 * below the API: ethereum/devnet, a placeholder secret, matching from the first chain event.
 */
export async function insertWebhookRows(
  db: Kysely<Tables>,
  webhooks: readonly string[],
  options: {
    plan?: 'free' | 'growth';
    status?: 'active' | 'paused';
    eventType?: string;
    url?: string;
    network?: string;
  } = {},
): Promise<void> {
  const { plan = 'growth', status = 'active', eventType = 'address_activity', url = 'http://127.0.0.1:9/' } = options;
  const network = options.network ?? 'ethereum/devnet';
  await sql`insert into accounts (id, name, plan) values ('acc_1', 'a', ${plan}) on conflict (id) do nothing`.execute(db);
  await sql`insert into webhooks (id, account_id, url, chain, network, event_type, config, payload_format, status,
              secret_ciphertext, start_seq)
            select id, 'acc_1', ${url}, 'ethereum', ${network}, ${eventType}, '{}', 'snake_case', ${status}, 'x', 0
            from unnest(${[...webhooks]}::text[]) as id`.execute(db);
}
