import type { SponsorshipCapsConfig } from '../config/sponsorship-caps-settings.ts';
import { formatUsd, parseUsd } from './usd.ts';

/** The account `limits` keys that override its plan's operator caps (decimal USD strings, null: unlimited). */
export const sponsorshipCapKeys = { usdPerDay: 'sponsorship_usd_per_day', usdTotal: 'sponsorship_usd_total' } as const;

/**
 * An account's operator caps: its plan's (`gas.sponsorship_caps`) with the account's own overrides on
 * top; an override of null lifts that cap, an absent one keeps the plan's. Pure.
 * @example resolveSponsorshipCaps({ usdPerDay: '10', usdTotal: '100' }, { sponsorship_usd_total: null }) // { usdPerDay: '10', usdTotal: null }
 */
export function resolveSponsorshipCaps(plan: SponsorshipCapsConfig, overrides: unknown): SponsorshipCapsConfig {
  const given = typeof overrides === 'object' && overrides !== null ? (overrides as Record<string, unknown>) : {};
  const pick = (key: string, fallback: string | null) => {
    const value = given[key];
    return value === null || typeof value === 'string' ? value : fallback;
  };
  return {
    usdPerDay: pick(sponsorshipCapKeys.usdPerDay, plan.usdPerDay),
    usdTotal: pick(sponsorshipCapKeys.usdTotal, plan.usdTotal),
  };
}

/** What an account has had sponsored (reservations not released; settled ones at their actual cost). */
export interface AccountSponsorshipUsage {
  readonly usdPico: bigint;
  /** Since 00:00 UTC. */
  readonly todayUsdPico: bigint;
}

/**
 * The operator cap an op would pass, as the refusal's message (the cap and the figures), or undefined. Pure.
 * @example "operator cap sponsorship_usd_per_day exceeded: this account has had 9.80 of 10.00 sponsored today (UTC), this op up to 0.50"
 */
export function operatorCapViolation(
  caps: SponsorshipCapsConfig,
  usage: AccountSponsorshipUsage,
  costUsdPico: bigint,
): string | undefined {
  const check = (key: string, cap: string | null, used: bigint, when: string) => {
    if (cap === null || used + costUsdPico <= parseUsd(cap)) return undefined;
    return `operator cap ${key} exceeded: this account has had ${formatUsd(used)} of ${formatUsd(parseUsd(cap))} sponsored ${when}, this op up to ${formatUsd(costUsdPico)} (the service's operator sets this cap)`;
  };
  return (
    check(sponsorshipCapKeys.usdPerDay, caps.usdPerDay, usage.todayUsdPico, 'today (UTC)') ??
    check(sponsorshipCapKeys.usdTotal, caps.usdTotal, usage.usdPico, 'in total')
  );
}
