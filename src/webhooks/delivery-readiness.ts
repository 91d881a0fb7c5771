import type { WebhookConfig } from './webhook-config.ts';

/** When a delivery of an event in `block` may go: at once, at an indexed head, or once its block is final. */
export interface DeliveryReadiness {
  /** Not sent before the index reaches this block (null: at once). */
  readonly readyBlock: number | null;
  /** `readyBlock` must also be final by the network's finality (src/chains/final-block.ts, via the index). */
  readonly readyFinal: boolean;
}

export function deliveryReadiness(confirmations: WebhookConfig['confirmations'], block: number): DeliveryReadiness {
  if (confirmations === 'finalized') return { readyBlock: block, readyFinal: true };
  const count = confirmations ?? 0;
  return { readyBlock: count > 0 ? block + count : null, readyFinal: false };
}
