import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { closedObject } from './json-schema-parts.ts';

/** A USD amount as a decimal string ("10", "2.50"), or null for no cap. */
const usdCapSchema = { type: ['string', 'null'], pattern: '^[0-9]{1,15}(\\.[0-9]{1,12})?$' } as const satisfies JSONSchema;
const planCapsSchema = closedObject({ usd_per_day: usdCapSchema, usd_total: usdCapSchema });

/** `gas.sponsorship_caps`: USD an account of each plan may have sponsored per UTC day and in total. */
export const sponsorshipCapsSchema = closedObject({ free: planCapsSchema, growth: planCapsSchema, enterprise: planCapsSchema });

/** Operator caps on an account's sponsored gas, USD as decimal strings; null: unlimited. */
export interface SponsorshipCapsConfig {
  /** Per UTC day. */
  readonly usdPerDay: string | null;
  readonly usdTotal: string | null;
}

/** Each plan's operator caps (`gas.sponsorship_caps`). */
export type SponsorshipCaps = Readonly<Record<'free' | 'growth' | 'enterprise', SponsorshipCapsConfig>>;

/** A free account may burn little of the shared paymaster deposit; growth more; enterprise is unlimited unless set. */
const defaultSponsorshipCaps: SponsorshipCaps = {
  free: { usdPerDay: '10', usdTotal: '100' },
  growth: { usdPerDay: '1000', usdTotal: null },
  enterprise: { usdPerDay: null, usdTotal: null },
};

export function buildSponsorshipCaps(caps: FromSchema<typeof sponsorshipCapsSchema> = {}): SponsorshipCaps {
  const plan = (name: keyof typeof defaultSponsorshipCaps) => ({
    usdPerDay: caps[name]?.usd_per_day !== undefined ? caps[name].usd_per_day : defaultSponsorshipCaps[name].usdPerDay,
    usdTotal: caps[name]?.usd_total !== undefined ? caps[name].usd_total : defaultSponsorshipCaps[name].usdTotal,
  });
  return { free: plan('free'), growth: plan('growth'), enterprise: plan('enterprise') };
}
