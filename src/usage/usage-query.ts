import { invalidRequest } from '../core/errors.ts';
import type { Granularity, Grouping, UsageBucket } from './store.ts';

/** Enough for a day by minute (1,440) or two months by hour; a chart has no use for more points. */
export const maxPointsPerSeries = 1_500;

const bucketMs: Record<Granularity, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
const defaultRangeMs = 86_400_000;

export interface UsageQuery {
  /** Rounded down to the start of its bucket (UTC), so the first point covers a whole bucket. */
  readonly from: Date;
  readonly to: Date;
  readonly granularity: Granularity;
  readonly groupBy: Grouping;
}

/**
 * The query of `GET /v1/usage` after the schema's checks: defaults (the last 24 h, by hour, by key)
 * and the checks a schema cannot make, each a 400 naming its parameter.
 */
export function parseUsageQuery(
  query: { from?: string; to?: string; granularity?: Granularity; group_by?: Grouping },
  nowMs: number,
): UsageQuery {
  const granularity = query.granularity ?? 'hour';
  const groupBy = query.group_by ?? 'key';
  const toMs = query.to === undefined ? nowMs : parseTime('to', query.to);
  const fromMs = query.from === undefined ? toMs - defaultRangeMs : parseTime('from', query.from);
  if (fromMs >= toMs) throw invalidRequest('from', 'must be earlier than to');
  const size = bucketMs[granularity];
  const alignedFrom = Math.floor(fromMs / size) * size;
  const points = Math.ceil((toMs - alignedFrom) / size);
  if (points > maxPointsPerSeries) {
    throw invalidRequest(
      'granularity',
      `from..to holds ${points} ${granularity}s, more than ${maxPointsPerSeries} points per series; use a coarser granularity or a shorter range`,
    );
  }
  return { from: new Date(alignedFrom), to: new Date(toMs), granularity, groupBy };
}

function parseTime(name: string, value: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw invalidRequest(name, 'must be an RFC 3339 date-time, e.g. 2026-11-25T10:00:00Z');
  return ms;
}

export interface UsageTotals {
  requests: number;
  compute_units: number;
  rate_limited: number;
}

export interface UsageSeries {
  group: string;
  points: ({ t: string } & UsageTotals)[];
}

/**
 * One series per group, a point for every bucket of the range (zeros where nothing was counted, so a
 * chart needs no filling), the busiest group first.
 */
export function buildSeries(buckets: readonly UsageBucket[], query: UsageQuery): { series: UsageSeries[]; totals: UsageTotals } {
  const size = bucketMs[query.granularity];
  const start = query.from.getTime();
  const count = Math.ceil((query.to.getTime() - start) / size);
  const totals: UsageTotals = { requests: 0, compute_units: 0, rate_limited: 0 };
  const byGroup = new Map<string, { series: UsageSeries; requests: number }>();
  for (const bucket of buckets) {
    let entry = byGroup.get(bucket.group);
    if (entry === undefined) {
      const points = Array.from({ length: count }, (_, index) => ({
        t: new Date(start + index * size).toISOString(),
        requests: 0,
        compute_units: 0,
        rate_limited: 0,
      }));
      entry = { series: { group: bucket.group, points }, requests: 0 };
      byGroup.set(bucket.group, entry);
    }
    const point = entry.series.points[Math.floor((bucket.t - start) / size)];
    if (point === undefined) continue;
    point.requests += bucket.requests;
    point.compute_units += bucket.computeUnits;
    point.rate_limited += bucket.rateLimited;
    entry.requests += bucket.requests;
    totals.requests += bucket.requests;
    totals.compute_units += bucket.computeUnits;
    totals.rate_limited += bucket.rateLimited;
  }
  const series = [...byGroup.values()]
    .sort((a, b) => b.requests - a.requests || (a.series.group < b.series.group ? -1 : 1))
    .map((entry) => entry.series);
  return { series, totals };
}
