import { describe, expect, it } from 'vitest';
import { type RouteGroup, routeGroups, type Sample } from '../../bench/support/soak-load.ts';
import { type MinuteRow, verdict } from '../../bench/support/soak-report.ts';

/** Minute rows with these RSS floors; everything else flat. */
function rowsWithFloors(floors: number[]): MinuteRow[] {
  const p99 = Object.fromEntries(routeGroups.map((group) => [group, 5])) as MinuteRow['p99'];
  return floors.map((floor, index) => ({
    minute: index + 1,
    rssMiB: floor + 4,
    rssFloorMiB: floor,
    heapMiB: 75,
    fds: 242,
    sockets: 223,
    loopP99Ms: 12,
    p99,
    requests: 1385,
    failed: 0,
  }));
}

describe('the soak verdict on memory after forced full collections', () => {
  // The CI run of 2026-12-05 whose floor rose 18.9% (163.8 -> 194.8 MiB): V8 ran no full collection
  // after minute 6. With a forced one at each end, the floors no longer decide.
  const floorsWithoutLateCollection = [150, 158, 163.8, 172, 180, 187, 194.8, 197, 199, 201, 203, 205];

  const baseline = { minute: 3, rssMiB: 152.4, heapMiB: 61.2 };
  const cases: [string, { rssMiB: number; heapMiB: number }, string[]][] = [
    ['passes what stays flat after a collection, however high the sawtooth ends', { rssMiB: 158.9, heapMiB: 63.0 }, []],
    [
      'fails a heap that keeps what it used, even with RSS flat',
      { rssMiB: 160.1, heapMiB: 70.0 },
      ['heap after a full collection (MiB) grew 14.4% (minute 3: 61.2, minute 12: 70.0), over 10%'],
    ],
    [
      'fails RSS that stays high after a collection',
      { rssMiB: 171.0, heapMiB: 62.0 },
      ['RSS after a full collection (MiB) grew 12.2% (minute 3: 152.4, minute 12: 171.0), over 10%'],
    ],
  ];

  it.each(cases)('%s', (_, end, problems) => {
    const collected = { baseline, end: { minute: 12, ...end } };
    expect(verdict(rowsWithFloors(floorsWithoutLateCollection), 3, [], collected)).toEqual(problems);
  });

  it('falls back to the floors when the run could not force a collection', () => {
    expect(verdict(rowsWithFloors(floorsWithoutLateCollection), 3, [])[0]).toMatch(/^RSS floor \(MiB\) grew 18\.9%/);
  });
});

describe('the soak verdict on RSS floors (no forced collection)', () => {
  it('passes the sawtooth of a run without a leak, wherever its collections fall', () => {
    // The 12-minute run of 2026-11-27 01:05 UTC (full collections in minutes 5 and after 12).
    const cycleEndingHigh = [141.6, 147.4, 161.0, 176.7, 150.4, 155.1, 152.4, 157.2, 167.2, 183.1, 190.4, 194.0];
    expect(verdict(rowsWithFloors(cycleEndingHigh), 3, [])).toEqual([]);
    // The 20-minute run of 2026-11-27 00:36 UTC, its minute-end samples (collections near 8.5 and 16.5).
    const twenty = [183, 152, 153.9, 158, 164, 180, 187, 190, 155.0, 160, 158, 163, 175, 186, 190, 191, 157.2, 162, 160, 164];
    expect(verdict(rowsWithFloors(twenty), 3, [])).toEqual([]);
  });

  it('fails a floor that keeps rising', () => {
    const leaking = Array.from({ length: 12 }, (_, index) => 150 + index * 4);
    const problems = verdict(rowsWithFloors(leaking), 3, []);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^RSS floor \(MiB\) grew .* \(minutes 3-6: 158\.0, minutes 7-12: 174\.0\), over 10%$/);
  });
});

/** 100 dashboard requests a minute for 12 minutes, each taking `msAt(minute, index)`. */
function dashboardSamples(msAt: (minute: number, index: number) => number): Sample[] {
  const group: RouteGroup = 'dashboard';
  return Array.from({ length: 12 * 100 }, (_, n) => {
    const minute = Math.floor(n / 100) + 1;
    return { at: (minute - 1) * 60_000 + (n % 100) * 600, group, path: '/', ms: msAt(minute, n % 100), ok: true };
  });
}

describe('the soak verdict on latency', () => {
  const flat = rowsWithFloors(Array.from({ length: 12 }, () => 160));

  it('passes one slow request in the last minute (the CI run of 2026-12-02: 15.6 -> 54.2 ms)', () => {
    const samples = dashboardSamples((minute, index) => (minute === 12 && index === 50 ? 54.2 : 8 + (index % 10)));
    expect(verdict(flat, 3, samples)).toEqual([]);
  });

  it('fails a p99 that rises through the second half', () => {
    const samples = dashboardSamples((minute, index) => (minute > 6 ? 4 * (8 + (index % 10)) : 8 + (index % 10)));
    expect(verdict(flat, 3, samples)).toEqual([
      'dashboard p99 went from 17.0 ms (minutes 3-6) to 68.0 ms (minutes 7-12), over 2x; ' +
        'slowest: 68 ms / at 365 s, 68 ms / at 371 s, 68 ms / at 377 s, 68 ms / at 383 s, 68 ms / at 389 s',
    ]);
  });
});
