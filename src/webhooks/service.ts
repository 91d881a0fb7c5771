import { type Kysely, sql } from 'kysely';
import type { Principal } from '../auth/principal.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { resolveFieldNetwork } from '../chains/resolve-field-network.ts';
import { privateDestinations } from '../config/private-destinations.ts';
import { forbidden, invalidRequest } from '../core/errors.ts';
import type { WebhookRow } from '../db/tables/webhooks.ts';
import type { Tables } from '../db/tables.ts';
import { deleteWebhook } from './delete-webhook.ts';
import { newWebhookId } from './ids.ts';
import type { Enricher } from './matcher.ts';
import { changeNftFilters, readNftFilterPage } from './nft-filter-change.ts';
import type { NftFilterPair } from './nft-filter-pairs.ts';
import { eventTypeField, readOwnedWebhook } from './owned-webhook.ts';
import type { PayloadFormat } from './payloads.ts';
import { redeliver } from './redeliver.ts';
import type { ReplayRequest } from './replay.ts';
import { replayWebhook } from './replay-webhook.ts';
import { generateSigningSecret, type SecretBox } from './secrets.ts';
import { sendTestEvent } from './send-test-event.ts';
import { assertWebhookUrl, type Mode } from './url-policy.ts';
import {
  changeWebhookAddresses,
  readWebhookAddressPage,
  replaceWebhookAddresses,
  setWebhookAddresses,
} from './webhook-addresses.ts';
import { parseWebhookConfig, takesAddresses } from './webhook-config.ts';
import { listItem, readWebhookView, view, type WebhookView } from './webhook-view.ts';

export interface CreateWebhookInput {
  url: string;
  chain: string;
  network?: string;
  event_type: string;
  config?: unknown;
  payload_format?: PayloadFormat;
  /** The name the caller's body gives `url`, for its 400 (Alchemy's create-webhook: `webhook_url`). */
  url_field?: string;
}

export interface UpdateWebhookInput {
  url?: string;
  status?: 'active' | 'paused';
  config?: unknown;
}

/** How long a rotated-out secret keeps signing beside the new one. */
export const previousSecretLifetimeMs = 24 * 60 * 60 * 1000;

/** What creating and updating a webhook need: where URLs may point, and how to seal its secret. */
interface WebhookWriteDeps {
  db: Kysely<Tables>;
  chains: ChainRegistry;
  secrets: SecretBox;
  mode: Mode;
  allowedPrivate: ReturnType<typeof privateDestinations>;
  queued: () => void;
}

/** The `/v1/webhooks` operations, each on a webhook of the calling account. */
export function createWebhookService(deps: {
  db: Kysely<Tables>;
  chains: ChainRegistry;
  secrets: SecretBox;
  mode: Mode;
  /** `webhooks.private_destinations`: private ranges webhook URLs may point at. */
  privateDestinations?: readonly string[];
  enricher: Enricher;
  /** Something was queued in this process (its workers look at once). */
  queued: () => void;
  /** Replay's cap and page size (`webhooks.replay_max_events`, `webhooks.replay_page_events`). */
  replay?: { maxEvents: number; pageEvents: number };
}) {
  const { db } = deps;
  const writes: WebhookWriteDeps = { ...deps, allowedPrivate: privateDestinations(deps.privateDestinations) };
  return {
    create: (principal: Principal, input: CreateWebhookInput) => createWebhook(writes, principal, input),
    list: (principal: Principal, query: WebhookListQuery) => listWebhooks(db, principal, query),
    listAll: (principal: Principal) => listAllWebhooks(db, principal),
    get: async (principal: Principal, id: string): Promise<WebhookView> =>
      readWebhookView(db, await readOwnedWebhook(db, principal, id)),
    updateAddresses: (principal: Principal, id: string, change: AddressChange) =>
      updateWebhookAddresses(db, principal, id, (trx) => changeWebhookAddresses(trx, id, change)),
    setAddresses: (principal: Principal, id: string, addresses: readonly string[]) =>
      updateWebhookAddresses(db, principal, id, (trx) => setWebhookAddresses(trx, id, addresses)),
    listAddresses: async (principal: Principal, id: string, page: { limit: number; after?: string }) => {
      const row = await readOwnedWebhook(db, principal, id);
      return { ...(await readWebhookAddressPage(db, id, page)), total: view(row).address_count };
    },
    update: (principal: Principal, id: string, input: UpdateWebhookInput) => updateWebhook(writes, principal, id, input),
    nftFilters: (principal: Principal, id: string, page: { limit: number; after: number }) =>
      readNftFilterPage(db, principal, id, page),
    changeNftFilters: (principal: Principal, id: string, change: { add: NftFilterPair[]; remove: NftFilterPair[] }) =>
      changeNftFilters(db, principal, id, change),
    remove: (principal: Principal, id: string) => removeWebhook(db, principal, id),
    rotateSecret: (principal: Principal, id: string) => rotateSecret(deps, principal, id),
    sendTest: (principal: Principal, id: string) => sendTestEvent(deps, principal, id),
    redeliver: (principal: Principal, id: string, deliveryId: string) => redeliver(deps, principal, id, deliveryId),
    replay: (principal: Principal, id: string, request: ReplayRequest) => replayWebhook(deps, principal, id, request),
  };
}

async function createWebhook(deps: WebhookWriteDeps, principal: Principal, input: CreateWebhookInput): Promise<WebhookView> {
  const { db, chains } = deps;
  const type = eventTypeField(input.event_type);
  const config = parseWebhookConfig(type, input.config);
  const url = assertWebhookUrl(input.url, deps.mode, input.url_field ?? 'url', deps.allowedPrivate);
  const network = resolveFieldNetwork(chains.list(), principal, input.chain, input.network);
  if (network.config.kind !== 'evm')
    throw invalidRequest('chain', `webhooks watch EVM chains; ${input.chain} is ${network.config.kind}`);
  const secret = generateSigningSecret();
  const newest = await db
    .selectFrom('chain_events')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .executeTakeFirst();
  const id = newWebhookId();
  const { addresses, ...rest } = config;
  const row = await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('webhooks')
      .values({
        id,
        account_id: principal.accountId,
        url,
        chain: network.config.chain,
        network: `${network.config.chain}/${network.config.network}`,
        event_type: type,
        config: JSON.stringify(rest),
        payload_format: input.payload_format ?? 'snake_case',
        status: 'active',
        secret_ciphertext: deps.secrets.seal(secret, id),
        start_seq: newest?.seq ? String(newest.seq) : '0',
      })
      .execute();
    await replaceWebhookAddresses(trx, id, addresses ?? []);
    return trx.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  });
  return { ...(await readWebhookView(db, row)), signing_secret: secret };
}

type WebhookListQuery = { status?: WebhookRow['status']; offset: number; limit: number };

async function listWebhooks(db: Kysely<Tables>, principal: Principal, query: WebhookListQuery) {
  let base = db.selectFrom('webhooks').where('account_id', '=', principal.accountId).where('deleted_at', 'is', null);
  if (query.status) base = base.where('status', '=', query.status);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id').offset(query.offset).limit(query.limit).execute(),
    base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { webhooks: rows.map(listItem), total: Number(count.total) };
}

/** Most webhooks one answer lists whole (Alchemy's team-webhooks has no pages): the newest this many. */
export const maxListedWebhooks = 10_000;

/** The account's webhooks, newest first, as views without their address lists. */
async function listAllWebhooks(db: Kysely<Tables>, principal: Principal): Promise<WebhookView[]> {
  const rows = await db
    .selectFrom('webhooks')
    .selectAll()
    .where('account_id', '=', principal.accountId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(maxListedWebhooks)
    .execute();
  return rows.map((row) => view(row));
}

async function updateWebhook(
  deps: WebhookWriteDeps,
  principal: Principal,
  id: string,
  input: UpdateWebhookInput,
): Promise<WebhookView> {
  const row = await readOwnedWebhook(deps.db, principal, id);
  const changes: Record<string, unknown> = {};
  if (input.url !== undefined) changes.url = assertWebhookUrl(input.url, deps.mode, 'url', deps.allowedPrivate);
  let addresses: readonly string[] | undefined;
  if (input.config !== undefined) {
    const { addresses: list, ...rest } = parseWebhookConfig(eventTypeField(row.event_type), input.config);
    changes.config = JSON.stringify(rest);
    addresses = list ?? [];
  }
  if (input.status !== undefined && input.status !== row.status) {
    if (row.status === 'disabled' && row.disabled_by === 'operator') {
      throw forbidden(
        `webhook '${id}' was disabled by an operator (${row.status_reason ?? 'no reason given'}); only they can enable it`,
      );
    }
    changes.status = input.status;
    changes.status_reason = input.status === 'paused' ? 'paused by its owner' : null;
    changes.disabled_by = null;
  }
  if (Object.keys(changes).length === 0) return readWebhookView(deps.db, row);
  const updated = await deps.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('webhooks')
      .set({ ...changes, updated_at: new Date() })
      .where('id', '=', id)
      .execute();
    // A new config replaces the whole filter, its address list too.
    if (addresses) await replaceWebhookAddresses(trx, id, addresses);
    return trx.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  });
  if (updated.status === 'active') deps.queued();
  return readWebhookView(deps.db, updated);
}

/** Addresses to add to and remove from a webhook's list, each checked and lower-cased already. */
export interface AddressChange {
  readonly add: readonly string[];
  readonly remove: readonly string[];
}

/** A change of the address list in one transaction; the matcher sees it from its next round. */
async function updateWebhookAddresses(
  db: Kysely<Tables>,
  principal: Principal,
  id: string,
  change: (trx: Kysely<Tables>) => Promise<number>,
) {
  const row = await readOwnedWebhook(db, principal, id);
  if (!takesAddresses(eventTypeField(row.event_type))) {
    throw invalidRequest('id', `a ${row.event_type} webhook does not watch addresses`);
  }
  const count = await db.transaction().execute(change);
  return { id, address_count: count };
}

async function removeWebhook(db: Kysely<Tables>, principal: Principal, id: string): Promise<{ id: string; deleted: true }> {
  await readOwnedWebhook(db, principal, id);
  await deleteWebhook(db, principal.accountId, id);
  return { id, deleted: true };
}

async function rotateSecret(deps: { db: Kysely<Tables>; secrets: SecretBox }, principal: Principal, id: string) {
  const { db } = deps;
  const row = await readOwnedWebhook(db, principal, id);
  const secret = generateSigningSecret();
  const updated = await db
    .updateTable('webhooks')
    .set({
      secret_ciphertext: deps.secrets.seal(secret, id),
      previous_secret_ciphertext: row.secret_ciphertext,
      // The database's clock: the workers that stop signing with it compare with that clock.
      previous_secret_expires_at: sql`now() + ${`${previousSecretLifetimeMs} milliseconds`}::interval`,
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return {
    ...(await readWebhookView(db, updated)),
    signing_secret: secret,
    previous_secret_expires_at: new Date(updated.previous_secret_expires_at!).toISOString(),
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
