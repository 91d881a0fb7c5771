import { describe, expect, it } from 'vitest';
import { operatorCapViolation, resolveSponsorshipCaps } from '../../src/sponsorship/operator-caps.ts';
import { parseUsd } from '../../src/sponsorship/usd.ts';

describe('operator caps (pure)', () => {
  const free = { usdPerDay: '10', usdTotal: '100' };

  it("an account's overrides win over its plan's; null lifts a cap, anything else keeps the plan's", () => {
    expect(resolveSponsorshipCaps(free, {})).toEqual(free);
    expect(resolveSponsorshipCaps(free, { sponsorship_usd_total: null, sponsorship_usd_per_day: '2.5' })).toEqual({
      usdPerDay: '2.5',
      usdTotal: null,
    });
    expect(resolveSponsorshipCaps(free, { rps: 5, sponsorship_usd_per_day: 3 })).toEqual(free);
    expect(resolveSponsorshipCaps(free, null)).toEqual(free);
  });

  it('names the cap and the figures; a cost that exactly fills the cap passes', () => {
    const usage = { usdPico: parseUsd('50'), todayUsdPico: parseUsd('9.5') };
    expect(operatorCapViolation(free, usage, parseUsd('0.5'))).toBeUndefined();
    expect(operatorCapViolation(free, usage, parseUsd('0.51'))).toBe(
      "operator cap sponsorship_usd_per_day exceeded: this account has had 9.50 of 10.00 sponsored today (UTC), this op up to 0.51 (the service's operator sets this cap)",
    );
    expect(operatorCapViolation({ usdPerDay: null, usdTotal: '50' }, usage, 1n)).toMatch(
      /^operator cap sponsorship_usd_total exceeded: this account has had 50\.00 of 50\.00 sponsored in total/,
    );
    expect(operatorCapViolation({ usdPerDay: null, usdTotal: null }, usage, parseUsd('1000000'))).toBeUndefined();
  });
});
