import { createHash, randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';

/**
 * An event's id follows from its webhook and what it is about, so matching the same fact again (a
 * replay, a matcher that restarted mid-round) gives the same id: receivers deduplicate on it.
 */
export function eventId(webhookId: string, sourceKey: string): string {
  return `evt_${createHash('sha256').update(`${webhookId}:${sourceKey}`).digest('hex').slice(0, 32)}`;
}

export function newWebhookId(): string {
  return `wh_${base58.encode(randomBytes(16))}`;
}

export function newDeliveryId(): string {
  return `dlv_${base58.encode(randomBytes(16))}`;
}
