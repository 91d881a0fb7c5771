/** The eight webhook event types (design.md), stored and returned in lower case. */
export const webhookEventTypes = [
  'address_activity',
  'token_transfer',
  'nft_transfer',
  'mined_transaction',
  'log',
  'internal_transfer',
  'new_block',
  'pending_transaction',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/** Variant B's upper-case names, as accepted on input and sent in camelCase bodies. */
const variantBNames: Record<WebhookEventType, string> = {
  address_activity: 'ADDRESS_ACTIVITY',
  token_transfer: 'TOKEN_TRANSFER',
  nft_transfer: 'NFT_ACTIVITY',
  mined_transaction: 'MINED_TRANSACTION',
  log: 'LOG',
  internal_transfer: 'INTERNAL_TRANSFER',
  new_block: 'NEW_BLOCK',
  pending_transaction: 'PENDING_TRANSACTION',
};

/**
 * The stored name of a type given by either variant, or undefined for an unknown one.
 * @example parseEventType('NFT_ACTIVITY') // 'nft_transfer'
 */
export function parseEventType(input: string): WebhookEventType | undefined {
  const lower = input.toLowerCase();
  if ((webhookEventTypes as readonly string[]).includes(lower)) return lower as WebhookEventType;
  const entry = Object.entries(variantBNames).find(([, name]) => name === input.toUpperCase());
  return entry?.[0] as WebhookEventType | undefined;
}

export function variantBName(type: WebhookEventType): string {
  return variantBNames[type];
}

export const acceptedEventTypeNames: readonly string[] = [...webhookEventTypes, ...new Set(Object.values(variantBNames))];
