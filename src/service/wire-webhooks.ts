import { join } from 'node:path';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Context } from '../context/context.ts';
import type { OpenDatabase } from '../db/connect.ts';
import { createMailer, type Mailer } from '../email/mailer.ts';
import type { ChainEventBus } from '../events/chain-event.ts';
import type { TokenService } from '../tokens/service.ts';
import { createEnricher } from '../webhooks/enricher.ts';
import { createSecretBox } from '../webhooks/secrets.ts';
import { createWebhookService, type WebhookService } from '../webhooks/service.ts';
import { startWebhookRole, type WebhookRole } from '../webhooks/start-webhooks.ts';

export interface Webhooks {
  readonly webhooks: WebhookService;
  /** Webhook notices and the dashboard's mails (processes serving the API or delivering webhooks). */
  readonly mailer: Mailer | undefined;
  /** Something was queued: this process's delivery workers (role `webhooks`) look now. */
  readonly poke: () => void;
}

export interface WebhooksDeps {
  readonly database: OpenDatabase;
  readonly chains: ChainRegistry;
  readonly events: ChainEventBus;
  readonly tokens: TokenService;
}

/** The webhook API's service, the mailer, and (role `webhooks`) the matcher and delivery workers. */
export async function wireWebhooks(ctx: Context, deps: WebhooksDeps): Promise<Webhooks> {
  const { config, logger, shutdown } = ctx;
  const { database, chains, tokens } = deps;
  const secrets = createSecretBox(config);
  const enricher = createEnricher({ db: database.db, chains, tokens, logger });
  let webhookRole: WebhookRole | undefined;
  const poke = () => webhookRole?.poke();
  const webhooks = createWebhookService({
    db: database.db,
    chains,
    secrets,
    mode: config.mode,
    privateDestinations: config.webhooks.privateDestinations,
    enricher,
    queued: poke,
    replay: { maxEvents: config.webhooks.replayMaxEvents, pageEvents: config.webhooks.replayPageEvents },
  });
  const mailer = wireMailer(ctx);
  if (mailer && config.roles.includes('webhooks')) {
    const role = await startWebhookRole({
      ctx,
      databaseUrl: database.url,
      chains,
      events: deps.events,
      secrets,
      enricher,
      mailer,
    });
    webhookRole = role;
    shutdown.add('webhook delivery', () => role.close());
  }
  return { webhooks, mailer, poke };
}

function wireMailer(ctx: Context): Mailer | undefined {
  const { config, logger, shutdown } = ctx;
  if (!config.roles.includes('webhooks') && !config.roles.includes('api')) return undefined;
  const mailer = createMailer({
    smtpUrl: config.email.smtpUrl,
    from: config.email.from,
    outboxDir: join(config.dataDir, 'outbox'),
    logger,
  });
  shutdown.add('mailer', () => mailer.close());
  return mailer;
}
