import type { ClaimedDelivery } from './claim-deliveries.ts';
import { parseEventType, variantBName } from './event-types.ts';
import { type PayloadFormat, renderPayload } from './payloads.ts';
import { signatureHeaders } from './signing.ts';

export interface DeliveryRequest {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * The POST one delivery makes: its payload in the webhook's format and the headers that name and
 * sign it, with the signature timestamp `at`. Pure: the same inputs give the same request.
 */
export function buildDeliveryRequest(input: {
  delivery: ClaimedDelivery;
  webhookId: string;
  format: PayloadFormat;
  secrets: readonly string[];
  chainId: number;
  maxPayloadBytes: number;
  at: Date;
}): DeliveryRequest {
  const { delivery, format } = input;
  const type = parseEventType(delivery.event_type) ?? 'log';
  const body = renderPayload(
    {
      id: delivery.event_id,
      webhookId: input.webhookId,
      type,
      chainId: input.chainId,
      data: delivery.data,
      removed: delivery.removed,
      removesEventId: delivery.removes_event_id,
      test: delivery.test,
      createdAt: new Date(delivery.event_created_at),
    },
    format,
    input.maxPayloadBytes,
  );
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Blockyard-Webhooks/1',
    'x-webhook-event': format === 'camelCase' ? variantBName(type) : type,
    'x-webhook-idempotency-key': delivery.event_id,
    ...signatureHeaders({
      secrets: input.secrets,
      format,
      eventId: delivery.event_id,
      timestamp: Math.floor(input.at.getTime() / 1000),
      body,
    }),
  };
  return { headers, body };
}
