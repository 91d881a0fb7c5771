import { mapBounded } from '../core/map-bounded.ts';
import { inRootSpan, setSpanAttributes, tracingOn } from '../tracing/tracing.ts';
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
    const result = tracingOn()
      ? await sendTraced(input.sender, webhook, delivery, request)
      : await input.sender.send(webhook.url, request.headers, request.body);
    sent.push({ delivery, request, at, result });
    if (result.status === 410) gone = true;
  });
  return { sent, gone };
}

/**
 * One delivery attempt in a span (its `traceparent` goes to the receiver, send-delivery.ts): the ids,
 * the event type, the attempt and the answer's status; never the URL (it may carry the receiver's
 * token), the payload or the signing secret.
 */
function sendTraced(
  sender: DeliverySender,
  webhook: Pick<ServedWebhook, 'id' | 'url'>,
  delivery: ClaimedDelivery,
  request: DeliveryRequest,
): Promise<SendResult> {
  const attributes = {
    'blockyard.webhook.id': webhook.id,
    'blockyard.delivery.id': delivery.id,
    'blockyard.event.id': delivery.event_id,
    'blockyard.event.type': delivery.event_type,
    'blockyard.network': delivery.network,
    'blockyard.delivery.attempt': delivery.attempts + 1,
  };
  return inRootSpan(
    'webhook delivery',
    attributes,
    async () => {
      const result = await sender.send(webhook.url, request.headers, request.body);
      setSpanAttributes({ 'blockyard.delivery.ok': result.ok, 'http.response.status_code': result.status ?? 0 });
      return result;
    },
    'client',
  );
}
