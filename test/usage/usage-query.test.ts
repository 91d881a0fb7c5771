import { describe, expect, it } from 'vitest';
import { buildSeries, parseUsageQuery } from '../../src/usage/usage-query.ts';

const now = Date.parse('2026-11-25T10:30:00Z');

describe('usage query', () => {
  it('defaults to the last 24 h by hour, grouped by key, from rounded down to its bucket', () => {
    const query = parseUsageQuery({}, now);
    expect(query.from.toISOString()).toBe('2026-11-24T10:00:00.000Z');
    expect(query.to.toISOString()).toBe('2026-11-25T10:30:00.000Z');
    expect(query.granularity).toBe('hour');
    expect(query.groupBy).toBe('key');
  });

  it('refuses an empty range and more than 1,500 points, naming the parameter', () => {
    expect(() => parseUsageQuery({ from: '2026-11-25T10:00:00Z', to: '2026-11-25T10:00:00Z' }, now)).toThrow(
      "invalid parameter 'from'",
    );
    expect(() => parseUsageQuery({ from: '2026-11-20T00:00:00Z', granularity: 'minute' }, now)).toThrow(
      "invalid parameter 'granularity'",
    );
    expect(parseUsageQuery({ from: '2026-11-24T10:30:00Z', granularity: 'minute' }, now).granularity).toBe('minute');
  });

  it('gives every group a point per bucket, zeros included, busiest group first', () => {
    const query = parseUsageQuery({ from: '2026-11-25T08:00:00Z', to: '2026-11-25T10:30:00Z' }, now);
    const t = (iso: string) => Date.parse(iso);
    const { series, totals } = buildSeries(
      [
        { group: 'a', t: t('2026-11-25T08:00:00Z'), requests: 1, computeUnits: 1, rateLimited: 0 },
        { group: 'b', t: t('2026-11-25T09:00:00Z'), requests: 3, computeUnits: 0, rateLimited: 3 },
        { group: 'a', t: t('2026-11-25T10:00:00Z'), requests: 1, computeUnits: 5, rateLimited: 0 },
      ],
      query,
    );
    expect(series.map((s) => s.group)).toEqual(['b', 'a']);
    expect(series[1]!.points).toEqual([
      { t: '2026-11-25T08:00:00.000Z', requests: 1, compute_units: 1, rate_limited: 0 },
      { t: '2026-11-25T09:00:00.000Z', requests: 0, compute_units: 0, rate_limited: 0 },
      { t: '2026-11-25T10:00:00.000Z', requests: 1, compute_units: 5, rate_limited: 0 },
    ]);
    expect(totals).toEqual({ requests: 5, compute_units: 6, rate_limited: 3 });
  });
});
