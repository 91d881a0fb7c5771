import { mapBounded } from '../core/map-bounded.ts';
import type { ClaimedDelivery, ServedWebhook } from './claim-deliveries.ts';
import { buildDeliveryRequest, type DeliveryRequest } from './delivery-request.ts';
import type { DeliverySender, SendResult } from './send-delivery.ts';

/** One attempt made: what was sent, when, and what came back. */
export interface SentDelivery {
  readonly delivery: ClaimedDelivery;
  readonly request: DeliveryRequest;
  readonly at: Date;
  readonly result: SendResult;
}

/**
 * Sends the deliveries to the webhook's endpoint, at most `maxInFlight` at once and started in order.
 * An endpoint that answers 410 Gone gets nothing more: `gone` says so. Answers the attempts in the
 * order they finished.
 */
export async function sendClaimed(input: {
  deliveries: readonly ClaimedDelivery[];
  webhook: Pick<ServedWebhook, 'id' | 'url' | 'payload_format'>;
  secrets: readonly string[];
  sender: DeliverySender;
  maxInFlight: number;
  maxPayloadBytes: number;
  chainIdOf: (network: string) => number;
  now: () => Date;
}): Promise<{ sent: SentDelivery[]; gone: boolean }> {
  const { webhook } = input;
  const sent: SentDelivery[] = [];
  let gone = false;
  await mapBounded(input.deliveries, input.maxInFlight, async (delivery) => {
    if (gone) return;
    const at = input.now();
    const request = buildDeliveryRequest({
      delivery,
      webhookId: webhook.id,
      format: webhook.payload_format,
      secrets: input.secrets,
      chainId: input.chainIdOf(delivery.network),
      maxPayloadBytes: input.maxPayloadBytes,
      at,
    });
    const result = await input.sender.send(webhook.url, request.headers, request.body);
    sent.push({ delivery, request, at, result });
    if (result.status === 410) gone = true;
  });
  return { sent, gone };
}
