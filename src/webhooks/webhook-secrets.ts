import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Tables } from '../db/tables.ts';
import { isUnboundSecret, type SecretBox } from './secrets.ts';

/** How long a webhook whose secret does not open is left alone before the worker tries again. */
export const unopenableSecretHoldMs = 60_000;

interface SecretColumns {
  id: string;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: Date | string | null;
}

/**
 * The secrets a delivery of this webhook is signed with (current, then the previous one while it is
 * valid), or undefined when the current one does not open for this webhook: then nothing may be sent
 * (an unsigned or wrongly signed delivery would be worse), and the deliveries stay pending. Secrets
 * sealed before they were bound to their webhook are rewritten bound, in the caller's transaction.
 */
export async function openWebhookSecrets(
  trx: Kysely<Tables>,
  box: SecretBox,
  webhook: SecretColumns,
  logger: Logger,
  /** Now by the database's clock (the rotation's expiry was written by another process). */
  nowMs: number = Date.now(),
): Promise<string[] | undefined> {
  let current: string;
  try {
    current = box.open(webhook.secret_ciphertext, webhook.id);
  } catch (error) {
    logger.error(
      { webhook: webhook.id, reason: (error as Error).message },
      'webhook deliveries held: its signing secret cannot be decrypted; rotate the secret (or fix BLOCKYARD_ENCRYPTION_KEY)',
    );
    return undefined;
  }
  const secrets = [current];
  let previous: string | undefined;
  const previousValid =
    webhook.previous_secret_ciphertext !== null &&
    webhook.previous_secret_expires_at !== null &&
    new Date(webhook.previous_secret_expires_at).getTime() > nowMs;
  if (previousValid) {
    try {
      previous = box.open(webhook.previous_secret_ciphertext!, webhook.id);
      secrets.push(previous);
    } catch (error) {
      // The current secret still signs; a previous one that does not open is only left out.
      logger.warn({ webhook: webhook.id, reason: (error as Error).message }, 'previous webhook signing secret left out');
    }
  }
  await bindUnboundSecrets(trx, box, webhook, current, previous);
  return secrets;
}

async function bindUnboundSecrets(
  trx: Kysely<Tables>,
  box: SecretBox,
  webhook: SecretColumns,
  current: string,
  previous: string | undefined,
): Promise<void> {
  const columns = [
    ['secret_ciphertext', webhook.secret_ciphertext, current],
    ['previous_secret_ciphertext', webhook.previous_secret_ciphertext, previous],
  ] as const;
  for (const [column, sealed, plain] of columns) {
    if (plain === undefined || !sealed || !isUnboundSecret(sealed)) continue;
    // Only if the row still holds what was read: a rotation in between wins.
    await trx
      .updateTable('webhooks')
      .set({ [column]: box.seal(plain, webhook.id) })
      .where('id', '=', webhook.id)
      .where(column, '=', sealed)
      .execute();
  }
}

/**
 * Rewrites every secret still sealed without its webhook's id (rows written before the binding), so a
 * webhook without deliveries does not keep an unbound one. Run once when the webhooks role starts; a
 * row that does not open is left as it is (its deliveries are held and logged when they come).
 */
export async function bindAllUnboundSecrets(db: Kysely<Tables>, box: SecretBox, logger: Logger): Promise<number> {
  const rows = await db
    .selectFrom('webhooks')
    .select(['id', 'secret_ciphertext', 'previous_secret_ciphertext', 'previous_secret_expires_at'])
    .where((eb) => eb.or([eb('secret_ciphertext', 'like', 'v1.%'), eb('previous_secret_ciphertext', 'like', 'v1.%')]))
    .execute();
  let bound = 0;
  for (const row of rows) {
    try {
      const current = box.open(row.secret_ciphertext, row.id);
      const previous = row.previous_secret_ciphertext ? box.open(row.previous_secret_ciphertext, row.id) : undefined;
      await bindUnboundSecrets(db, box, row, current, previous);
      bound += 1;
    } catch (error) {
      logger.warn({ webhook: row.id, reason: (error as Error).message }, 'webhook signing secret left unbound');
    }
  }
  if (bound > 0) logger.info({ webhooks: bound }, 'webhook signing secrets bound to their webhook');
  return bound;
}
