import { describe, expect, it } from 'vitest';
import { spanOfFiring } from './fault-alerts.ts';

describe("an alert's span from its firing samples (the cluster run's alert verdicts)", () => {
  it('is unresolved while the newest sample is within one evaluation of the query time, however the samples lag', () => {
    const times = [10_000, 11_000, 12_000];
    expect(spanOfFiring(times, 12_500)).toEqual({ firedAt: 10_000 });
    // The newest evaluation not stored yet: 1.5 s past the last sample is still no resolve.
    expect(spanOfFiring(times, 13_500)).toEqual({ firedAt: 10_000 });
  });

  it('is resolved one evaluation after the last sample of the first run, once a gap shows it', () => {
    expect(spanOfFiring([10_000, 11_000, 12_000], 14_000)).toEqual({ firedAt: 10_000, clearedAt: 13_000 });
    // A later firing, after a gap, does not move the first resolve.
    expect(spanOfFiring([12_000, 10_000, 11_000, 20_000, 21_000], 21_500)).toEqual({ firedAt: 10_000, clearedAt: 13_000 });
  });

  it('has nothing when the alert never fired', () => {
    expect(spanOfFiring([], 10_000)).toEqual({});
  });
});
