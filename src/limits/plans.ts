/**
 * Plans and the limits they give an account. All keys of an account share these budgets
 * (design.md "Keys, scopes, limits"; spec section 8). `null` means unlimited.
 */
export const plans = ['free', 'growth', 'enterprise'] as const;
export type Plan = (typeof plans)[number];

export interface AccountLimits {
  /** Requests per second (one-second window aligned to Unix seconds). */
  rps: number | null;
  /** Requests per UTC day. */
  rpd: number | null;
  /** Compute units per second (same window as rps). */
  cups: number | null;
  /** Webhook deliveries per UTC day, across all event types. */
  webhook_deliveries_per_day: number | null;
}

/**
 * Defaults per plan. The spec fixes free and growth rps/rpd/CU/s and the free plan's 1,000 deliveries
 * a day; it shows no delivery cap for growth, so growth has none. Enterprise is "custom" or "unlimited"
 * depending on the reading: it defaults to unlimited and takes per-account overrides.
 */
export const planLimits: Readonly<Record<Plan, Readonly<AccountLimits>>> = Object.freeze({
  free: Object.freeze({ rps: 10, rpd: 100_000, cups: 200, webhook_deliveries_per_day: 1_000 }),
  growth: Object.freeze({ rps: 100, rpd: 5_000_000, cups: 2_000, webhook_deliveries_per_day: null }),
  enterprise: Object.freeze({ rps: null, rpd: null, cups: null, webhook_deliveries_per_day: null }),
});

export function isPlan(value: unknown): value is Plan {
  return typeof value === 'string' && (plans as readonly string[]).includes(value);
}

/**
 * The limits of an account: its plan's defaults with per-account overrides on top (for any plan).
 * An override of `null` makes that limit unlimited; an absent (`undefined`) key keeps the default.
 * @example resolveLimits('enterprise', { rps: 500 }) // { rps: 500, rpd: null, cups: null, webhook_deliveries_per_day: null }
 */
export function resolveLimits(plan: Plan, overrides: Partial<AccountLimits>): AccountLimits {
  const base = planLimits[plan];
  return {
    rps: overrides.rps !== undefined ? overrides.rps : base.rps,
    rpd: overrides.rpd !== undefined ? overrides.rpd : base.rpd,
    cups: overrides.cups !== undefined ? overrides.cups : base.cups,
    webhook_deliveries_per_day:
      overrides.webhook_deliveries_per_day !== undefined ? overrides.webhook_deliveries_per_day : base.webhook_deliveries_per_day,
  };
}
