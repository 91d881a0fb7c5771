import { type Kysely, sql } from 'kysely';

/**
 * A webhook's watched addresses move from its `config` JSON (up to 10,000 there) to a table of their
 * own, up to 100,000 a webhook: one row per (webhook, address), and an index on the address so a
 * block's few hundred distinct addresses are looked up in one query whatever the lists' sizes.
 * `address_filter` says the webhook filters by the table (false: by `config.addresses`, as a webhook
 * written by the previous release during a rolling upgrade does); `address_count` is the table's
 * count for it. The copied `config.addresses` stay in the JSON (migrations only add): the previous
 * release still reads them until every node runs this one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table webhook_addresses (
      webhook_id text not null references webhooks (id) on delete cascade,
      address text not null,
      primary key (webhook_id, address)
    )`.execute(db);
  await sql`create index webhook_addresses_address_idx on webhook_addresses (address)`.execute(db);
  await sql`alter table webhooks add column address_filter boolean not null default false`.execute(db);
  await sql`alter table webhooks add column address_count integer not null default 0`.execute(db);
  await sql`
    insert into webhook_addresses (webhook_id, address)
    select distinct w.id, lower(a.address)
    from webhooks w, jsonb_array_elements_text(w.config -> 'addresses') as a(address)
    where jsonb_typeof(w.config -> 'addresses') = 'array'
    on conflict do nothing`.execute(db);
  await sql`
    update webhooks w
    set address_filter = true,
        address_count = (select count(*) from webhook_addresses a where a.webhook_id = w.id)
    where jsonb_typeof(w.config -> 'addresses') = 'array' and jsonb_array_length(w.config -> 'addresses') > 0`.execute(db);
}
