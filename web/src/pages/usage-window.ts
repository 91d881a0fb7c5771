// The usage page's time ranges and the reads of a window, shared with the page table so a cold load can
// ask for them beside the session call (page-table.ts) in the very form the page asks.
import { getUsage } from '../api/client.ts';
import type { Granularity } from '../api/types.ts';

export const usageRanges = {
  '1h': { label: '1 hour', ms: 3_600_000, granularity: 'minute', bucketMs: 60_000 },
  '24h': { label: '24 hours', ms: 86_400_000, granularity: 'hour', bucketMs: 3_600_000 },
  '7d': { label: '7 days', ms: 7 * 86_400_000, granularity: 'hour', bucketMs: 3_600_000 },
} as const satisfies Record<string, { label: string; ms: number; granularity: Granularity; bucketMs: number }>;
export type UsageRange = keyof typeof usageRanges;
export const defaultUsageRange: UsageRange = '24h';

export interface UsageWindow {
  from: number;
  to: number;
}

/** The range up to the end of the current minute: every read made within one minute asks for the same window. */
export function usageWindow(range: UsageRange, nowMs = Date.now()): UsageWindow {
  const to = Math.ceil(nowMs / 60_000) * 60_000;
  return { from: to - usageRanges[range].ms, to };
}

function query(range: UsageRange, window: UsageWindow) {
  return {
    from: new Date(window.from).toISOString(),
    to: new Date(window.to).toISOString(),
    granularity: usageRanges[range].granularity,
  };
}

export const usageByKey = (range: UsageRange, window: UsageWindow) => getUsage({ ...query(range, window), group_by: 'key' });
export const usageByMethod = (range: UsageRange, window: UsageWindow) =>
  getUsage({ ...query(range, window), group_by: 'method' });
