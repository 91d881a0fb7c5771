import { describe, expect, it } from 'vitest';
import { acceptedEventTypeNames, parseEventType, variantBName, webhookEventTypes } from '../../../src/webhooks/event-types.ts';

describe('parseEventType', () => {
  it.each(webhookEventTypes.map((type) => [type]))('reads the stored name %s as itself', (type) => {
    expect(parseEventType(type)).toBe(type);
    expect(parseEventType(type.toUpperCase())).toBe(type);
  });

  it.each([
    ['ADDRESS_ACTIVITY', 'address_activity'],
    ['TOKEN_TRANSFER', 'token_transfer'],
    ['NFT_ACTIVITY', 'nft_transfer'],
    ['nft_activity', 'nft_transfer'],
    ['MINED_TRANSACTION', 'mined_transaction'],
    ['LOG', 'log'],
    ['INTERNAL_TRANSFER', 'internal_transfer'],
    ['NEW_BLOCK', 'new_block'],
    ['PENDING_TRANSACTION', 'pending_transaction'],
    ['Token_Transfer', 'token_transfer'],
  ])("reads Variant B's %s as %s", (input, expected) => {
    expect(parseEventType(input)).toBe(expected);
  });

  it.each([['nft_activities'], ['transfer'], [''], ['NFT ACTIVITY'], [' log']])('does not know %j', (input) => {
    expect(parseEventType(input)).toBeUndefined();
  });

  it('round-trips every Variant B name, and lists each accepted name once', () => {
    for (const type of webhookEventTypes) expect(parseEventType(variantBName(type))).toBe(type);
    expect(variantBName('nft_transfer')).toBe('NFT_ACTIVITY');
    expect(new Set(acceptedEventTypeNames).size).toBe(acceptedEventTypeNames.length);
    expect(acceptedEventTypeNames).toContain('NFT_ACTIVITY');
    expect(acceptedEventTypeNames).toHaveLength(16);
  });
});
