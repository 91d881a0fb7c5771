import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Principal } from '../auth/principal.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { resolveFieldNetwork } from '../chains/resolve-field-network.ts';
import { AppError, forbidden, invalidRequest, notFound } from '../core/errors.ts';
import type { WebhookRow } from '../db/tables/webhooks.ts';
import type { Tables } from '../db/tables.ts';
import type { ChainEvent } from '../events/chain-event.ts';
import { readIndexHead } from '../indexer/index-head.ts';
import { acceptedEventTypeNames, parseEventType, type WebhookEventType } from './event-types.ts';
import { newDeliveryId, newWebhookId } from './ids.ts';
import { compileMatcher, type MatchedEvent, matchPendingTransaction } from './match-event.ts';
import type { Enricher } from './matcher.ts';
import { type OutboxEvent, writeOutbox } from './outbox.ts';
import type { PayloadFormat } from './payloads.ts';
import { privateDestinations } from './private-destinations.ts';
import { defaultReplayMaxEvents, type ReplayRequest, readReplayEvents, resolveReplayRange, streamReplay } from './replay.ts';
import { sampleChainEvent, samplePendingTransaction } from './sample-event.ts';
import { generateSigningSecret, type SecretBox } from './secrets.ts';
import { assertWebhookUrl, type Mode } from './url-policy.ts';
import { parseWebhookConfig, type WebhookConfig } from './webhook-config.ts';

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

export interface CreateWebhookInput {
  url: string;
  chain: string;
  network?: string;
  event_type: string;
  config?: unknown;
  payload_format?: PayloadFormat;
}

export interface UpdateWebhookInput {
  url?: string;
  status?: 'active' | 'paused';
  config?: unknown;
}

/** How long a rotated-out secret keeps signing beside the new one. */
export const previousSecretLifetimeMs = 24 * 60 * 60 * 1000;

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
  const { db, chains, secrets, mode } = deps;
  const allowedPrivate = privateDestinations(deps.privateDestinations);

  async function owned(principal: Principal, id: string): Promise<WebhookRow> {
    const row = await db
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', principal.accountId)
      .executeTakeFirst();
    // Another account's webhook is as absent as one that never existed.
    if (!row) throw notFound(`webhook '${id}' does not exist`);
    return row;
  }

  function eventTypeOf(input: string): WebhookEventType {
    const type = parseEventType(input);
    if (!type) throw invalidRequest('event_type', `unknown event type '${input}'; one of ${acceptedEventTypeNames.join(', ')}`);
    return type;
  }

  function facts(row: Pick<WebhookRow, 'chain' | 'network'>) {
    const network = chains.get(row.chain, row.network.split('/')[1] ?? '');
    return { chain: network.config.chain, network: network.config.network, nativeSymbol: network.config.nativeSymbol };
  }

  async function headBlock(network: string): Promise<{ number: number; hash: string; timestamp: string }> {
    const head = await readIndexHead(db, network);
    return head
      ? { number: head.number, hash: head.hash, timestamp: head.timestamp.toISOString() }
      : { number: 0, hash: `0x${'0'.repeat(64)}`, timestamp: new Date().toISOString() };
  }

  return {
    async create(principal: Principal, input: CreateWebhookInput): Promise<WebhookView> {
      const type = eventTypeOf(input.event_type);
      const config = parseWebhookConfig(type, input.config);
      const url = assertWebhookUrl(input.url, mode, 'url', allowedPrivate);
      const network = resolveFieldNetwork(chains.list(), principal, input.chain, input.network);
      if (network.config.kind !== 'evm')
        throw invalidRequest('chain', `webhooks watch EVM chains; ${input.chain} is ${network.config.kind}`);
      const secret = generateSigningSecret();
      const newest = await db
        .selectFrom('chain_events')
        .select((eb) => eb.fn.max('seq').as('seq'))
        .executeTakeFirst();
      const id = newWebhookId();
      const row = await db
        .insertInto('webhooks')
        .values({
          id,
          account_id: principal.accountId,
          url,
          chain: network.config.chain,
          network: `${network.config.chain}/${network.config.network}`,
          event_type: type,
          config: JSON.stringify(config),
          payload_format: input.payload_format ?? 'snake_case',
          status: 'active',
          secret_ciphertext: secrets.seal(secret, id),
          start_seq: newest?.seq ? String(newest.seq) : '0',
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { ...view(row), signing_secret: secret };
    },

    async list(principal: Principal, query: { status?: WebhookRow['status']; offset: number; limit: number }) {
      let base = db.selectFrom('webhooks').where('account_id', '=', principal.accountId);
      if (query.status) base = base.where('status', '=', query.status);
      const [rows, count] = await Promise.all([
        base.selectAll().orderBy('created_at', 'desc').orderBy('id').offset(query.offset).limit(query.limit).execute(),
        base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
      ]);
      return { webhooks: rows.map(listItem), total: Number(count.total) };
    },

    async get(principal: Principal, id: string): Promise<WebhookView> {
      return view(await owned(principal, id));
    },

    async update(principal: Principal, id: string, input: UpdateWebhookInput): Promise<WebhookView> {
      const row = await owned(principal, id);
      const changes: Record<string, unknown> = {};
      if (input.url !== undefined) changes.url = assertWebhookUrl(input.url, mode, 'url', allowedPrivate);
      if (input.config !== undefined)
        changes.config = JSON.stringify(parseWebhookConfig(eventTypeOf(row.event_type), input.config));
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
      if (Object.keys(changes).length === 0) return view(row);
      const updated = await db
        .updateTable('webhooks')
        .set({ ...changes, updated_at: new Date() })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      if (updated.status === 'active') deps.queued();
      return view(updated);
    },

    async remove(principal: Principal, id: string): Promise<{ id: string; deleted: true }> {
      await owned(principal, id);
      await db.deleteFrom('webhooks').where('id', '=', id).where('account_id', '=', principal.accountId).execute();
      return { id, deleted: true };
    },

    async rotateSecret(principal: Principal, id: string) {
      const row = await owned(principal, id);
      const secret = generateSigningSecret();
      const updated = await db
        .updateTable('webhooks')
        .set({
          secret_ciphertext: secrets.seal(secret, id),
          previous_secret_ciphertext: row.secret_ciphertext,
          // The database's clock: the workers that stop signing with it compare with that clock.
          previous_secret_expires_at: sql`now() + ${`${previousSecretLifetimeMs} milliseconds`}::interval`,
          updated_at: new Date(),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return {
        ...view(updated),
        signing_secret: secret,
        previous_secret_expires_at: new Date(updated.previous_secret_expires_at!).toISOString(),
      };
    },

    /** Queues a test event built by the webhook's own matcher (so shaped like a real one), marked `test: true`. */
    async sendTest(principal: Principal, id: string): Promise<{ event_id: string; delivery_id: string }> {
      const row = await owned(principal, id);
      if (row.status === 'disabled')
        throw new AppError('invalid_request', `webhook '${id}' is disabled: enable it before testing`);
      const type = eventTypeOf(row.event_type);
      const config = row.config as WebhookConfig;
      const networkFacts = facts(row);
      let data: Record<string, unknown> | undefined;
      let blockNumber: number | null = null;
      if (type === 'pending_transaction') {
        data = matchPendingTransaction(config, networkFacts, samplePendingTransaction(config));
      } else {
        const block = await headBlock(row.network);
        blockNumber = block.number;
        const match = compileMatcher(type, config, networkFacts)(sampleChainEvent(type, config, row.network, block));
        if (match) {
          data = { ...match.data };
          if (match.token) {
            const token = (await deps.enricher.tokens(row.network, [match.token])).get(match.token) ?? null;
            if (type === 'address_activity') data.asset = token?.symbol ?? null;
            else Object.assign(data, { symbol: token?.symbol ?? 'TEST', decimals: token?.decimals ?? 18 });
          }
          if (match.nft) data.metadata = null;
        }
      }
      if (!data) throw new AppError('internal_error', `no test event could be built for ${type}`);
      const event: OutboxEvent = {
        webhookId: id,
        accountId: row.account_id,
        network: row.network,
        sourceKey: `test:${randomBytes(8).toString('hex')}`,
        chainSeq: null,
        type,
        blockNumber,
        test: true,
        data,
      };
      const eventId = await db.transaction().execute(async (trx) => (await writeOutbox(trx, [event], 'test')).eventIds[0]!);
      const delivery = await db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('event_id', '=', eventId)
        .executeTakeFirstOrThrow();
      deps.queued();
      return { event_id: eventId, delivery_id: delivery.id };
    },

    async redeliver(principal: Principal, id: string, deliveryId: string): Promise<{ delivery_id: string; event_id: string }> {
      const row = await owned(principal, id);
      const original = await db
        .selectFrom('webhook_deliveries')
        .select(['event_id', 'network'])
        .where('id', '=', deliveryId)
        .where('webhook_id', '=', id)
        .executeTakeFirst();
      if (!original) throw notFound(`delivery '${deliveryId}' of webhook '${id}' does not exist`);
      const newId = newDeliveryId();
      await db
        .insertInto('webhook_deliveries')
        .values({
          id: newId,
          webhook_id: id,
          account_id: row.account_id,
          event_id: original.event_id,
          network: original.network,
          kind: 'redelivery',
          status: 'pending',
        })
        .execute();
      await sql`select pg_notify('blockyard_webhook_deliveries', '')`.execute(db);
      deps.queued();
      return { delivery_id: newId, event_id: original.event_id };
    },

    /**
     * Every event of the range that the webhook's filter matches, queued again in chain order with the
     * same ids, a page at a time; past the replay cap it stops at a block boundary and says where to go on.
     */
    async replay(principal: Principal, id: string, request: ReplayRequest) {
      const row = await owned(principal, id);
      const type = eventTypeOf(row.event_type);
      if (type === 'pending_transaction')
        throw invalidRequest('id', 'pending transactions are not kept: a pending_transaction webhook cannot be replayed');
      const range = await resolveReplayRange(db, row.network, request);
      const matcher = compileMatcher(type, row.config as WebhookConfig, facts(row));
      const confirmations = (row.config as WebhookConfig).confirmations ?? 0;
      // Already recorded events keep their data (the payload they were first sent with).
      const toOutbox = ({ event, match }: { event: ChainEvent; match: MatchedEvent }): OutboxEvent => ({
        webhookId: id,
        accountId: row.account_id,
        network: row.network,
        sourceKey: event.seq,
        chainSeq: event.seq,
        type,
        blockNumber: event.blockNumber,
        data: match.nft ? { ...match.data, metadata: null } : { ...match.data },
        readyBlock: confirmations > 0 ? event.blockNumber + confirmations : null,
      });
      const outcome = await streamReplay({
        pages: readReplayEvents(db, row.network, range, deps.replay?.pageEvents),
        match: (event) => {
          const match = matcher(event);
          return match ? { event, match } : undefined;
        },
        write: async (matches) => {
          const outbox = matches.map(toOutbox);
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
    },
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

function listItem(row: WebhookRow): WebhookListItem {
  const { id, url, chain, event_type, status, created_at } = view(row);
  return { id, url, chain, event_type, status, created_at };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
