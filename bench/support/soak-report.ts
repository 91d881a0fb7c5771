// The soak's verdict, its per-minute table and its chart (an SVG written here, no plotting library).

import { type RouteGroup, routeGroups, type Sample, uncomparedGroups } from './soak-load.ts';
import type { ProcessSample } from './soak-sampler.ts';

/** Growth allowed between the baseline minute and the last one. */
const maxGrowth = 0.1;
const maxP99Ratio = 2;
/** A p99 must also grow by more than this to fail: doubling 0.8 ms is not a trend. */
const p99FloorMs = 20;

export interface MinuteRow {
  minute: number;
  rssMiB: number;
  /** The minute's lowest RSS sample: what stays after V8's collections. */
  rssFloorMiB: number;
  heapMiB: number;
  fds: number;
  sockets: number;
  loopP99Ms: number;
  p99: Record<RouteGroup, number>;
  requests: number;
  failed: number;
}

/** What the process held just after forced full collections at two minutes of the run. */
export interface AfterCollections {
  baseline: CollectedMemory;
  end: CollectedMemory;
}

export interface CollectedMemory {
  minute: number;
  rssMiB: number;
  heapMiB: number;
}

export function p99(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** One row per whole minute of the run: process figures averaged, latency p99 over the minute's requests. */
export function minuteRows(process: ProcessSample[], samples: Sample[], minutes: number): MinuteRow[] {
  const rows: MinuteRow[] = [];
  for (let minute = 1; minute <= minutes; minute++) {
    const from = (minute - 1) * 60;
    const to = minute * 60;
    const taken = process.filter((sample) => sample.atS > from && sample.atS <= to + 1);
    const inMinute = samples.filter((sample) => sample.at / 1000 >= from && sample.at / 1000 < to);
    const p99s = Object.fromEntries(
      routeGroups.map((group) => [group, p99(inMinute.filter((sample) => sample.group === group).map((sample) => sample.ms))]),
    ) as Record<RouteGroup, number>;
    rows.push({
      minute,
      rssMiB: mean(taken.map((sample) => sample.rssMiB)),
      rssFloorMiB: Math.min(...taken.map((sample) => sample.rssMiB)),
      heapMiB: mean(taken.map((sample) => sample.heapMiB)),
      fds: mean(taken.map((sample) => sample.fds)),
      sockets: mean(taken.map((sample) => sample.sockets)),
      loopP99Ms: Math.max(...taken.map((sample) => sample.loopP99Ms)),
      p99: p99s,
      requests: inMinute.length,
      failed: inMinute.filter((sample) => !sample.ok).length,
    });
  }
  return rows;
}

/** Each route group's p99 over the requests of whole minutes `from` to `to` (1-based, inclusive). */
export function p99Over(samples: Sample[], from: number, to: number): Record<RouteGroup, number> {
  const inSpan = samples.filter((sample) => sample.at / 1000 >= (from - 1) * 60 && sample.at / 1000 < to * 60);
  return Object.fromEntries(
    routeGroups.map((group) => [group, p99(inSpan.filter((sample) => sample.group === group).map((sample) => sample.ms))]),
  ) as Record<RouteGroup, number>;
}

/** The minute a run's second half starts after: the RSS floor and the latency compare the halves. */
export const middleMinute = (minutes: number, baselineMinute: number) => Math.max(baselineMinute, Math.ceil(minutes / 2));

/**
 * Why the run fails (empty: it passes). Baseline: minute 3, or minute 2 for runs under 6 minutes.
 * Latency compares each group's p99 over the baseline half (baseline minute to the middle) with its
 * p99 over the second half: a minute holds ~100 samples a group, so one minute's p99 is its one or two
 * slowest requests (one collection pause), while a trend moves the whole second half.
 */
export function verdict(rows: MinuteRow[], baselineMinute: number, samples: Sample[], collected?: AfterCollections): string[] {
  const base = rows[baselineMinute - 1];
  const last = rows[rows.length - 1];
  if (!base || !last || base === last) return [`the run is too short: it needs minute ${baselineMinute} and a later one`];
  const problems: string[] = [];
  const grew = (name: string, from: number, to: number, fromWhen = `minute ${base.minute}`, toWhen = `minute ${last.minute}`) => {
    if (to > from * (1 + maxGrowth))
      problems.push(
        `${name} grew ${(((to - from) / from) * 100).toFixed(1)}% (${fromWhen}: ${from.toFixed(1)}, ${toWhen}: ${to.toFixed(1)}), over ${maxGrowth * 100}%`,
      );
  };
  // RSS is a sawtooth: it climbs for 6-8 minutes (buffers promoted to the old space are freed only by
  // a full collection) and falls back at each full collection, so a minute's figure depends on where
  // in the cycle it falls. A leak raises what stays after a full collection: measured right after
  // collections forced at the baseline minute and at the end where the run could force them, else
  // the lowest RSS from the baseline minute to the run's middle against the lowest after it (each half
  // of a 12-minute run usually, not always, spans one of V8's own).
  const middle = middleMinute(rows.length, baselineMinute);
  if (collected) {
    const [from, to] = [`minute ${collected.baseline.minute}`, `minute ${collected.end.minute}`];
    grew('RSS after a full collection (MiB)', collected.baseline.rssMiB, collected.end.rssMiB, from, to);
    grew('heap after a full collection (MiB)', collected.baseline.heapMiB, collected.end.heapMiB, from, to);
  } else {
    const floorOf = (part: MinuteRow[]) => Math.min(...part.map((row) => row.rssFloorMiB));
    grew(
      'RSS floor (MiB)',
      floorOf(rows.slice(baselineMinute - 1, middle)),
      floorOf(rows.slice(middle)),
      `minutes ${baselineMinute}-${middle}`,
      `minutes ${middle + 1}-${rows.length}`,
    );
  }
  grew('open handles (fds)', base.fds, last.fds);
  const before = p99Over(samples, baselineMinute, middle);
  const after = p99Over(samples, middle + 1, rows.length);
  for (const group of routeGroups) {
    if (uncomparedGroups.has(group)) continue;
    const from = before[group];
    const to = after[group];
    if (Number.isNaN(from) || Number.isNaN(to)) continue;
    if (to > from * maxP99Ratio && to - from > p99FloorMs)
      problems.push(
        `${group} p99 went from ${from.toFixed(1)} ms (minutes ${baselineMinute}-${middle}) to ${to.toFixed(1)} ms (minutes ${middle + 1}-${rows.length}), over ${maxP99Ratio}x; slowest: ${slowest(samples, group, middle)}`,
      );
  }
  // Said, not excused: a p99 that rose with the event loop's own delay is most likely other processes
  // taking the CPU (the machine is shared); rerun when it is quiet to tell noise from a trend.
  if (problems.some((problem) => problem.includes('p99')) && last.loopP99Ms > base.loopP99Ms * maxP99Ratio)
    problems.push(
      `note: the event loop's delay p99 rose too (${base.loopP99Ms.toFixed(1)} -> ${last.loopP99Ms.toFixed(1)} ms): likely CPU contention, not the service`,
    );
  const failed = last.failed / Math.max(1, last.requests);
  if (failed > 0.01) problems.push(`${(failed * 100).toFixed(1)}% of the last minute's requests failed`);
  return problems;
}

/** A group's five slowest requests after minute `after`: what a failed p99 was made of. */
function slowest(samples: Sample[], group: RouteGroup, after: number): string {
  return samples
    .filter((sample) => sample.group === group && sample.at / 1000 >= after * 60)
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 5)
    .map((sample) => `${sample.ms.toFixed(0)} ms ${sample.path} at ${(sample.at / 1000).toFixed(0)} s`)
    .join(', ');
}

export function formatTable(rows: MinuteRow[]): string {
  const header = [
    'minute',
    'RSS MiB',
    'RSS floor MiB',
    'heap MiB',
    'fds',
    'sockets',
    'loop p99 ms',
    ...routeGroups.map((g) => `${g} p99 ms`),
    'requests',
    'failed',
  ];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  const f = (value: number, digits = 1) => (Number.isNaN(value) ? '-' : value.toFixed(digits));
  for (const row of rows) {
    lines.push(
      `| ${[row.minute, f(row.rssMiB), f(row.rssFloorMiB), f(row.heapMiB), f(row.fds, 0), f(row.sockets, 0), f(row.loopP99Ms), ...routeGroups.map((g) => f(row.p99[g])), row.requests, row.failed].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

const colors = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2'];

/** Two panels over the run's time: RSS (MiB), and each route group's p99 (ms) per 10 s window. */
export function renderChart(process: ProcessSample[], samples: Sample[], windowS: number): string {
  const width = 900;
  const panel = 260;
  const left = 60;
  const endS = Math.max(60, ...process.map((sample) => sample.atS));
  const x = (s: number) => left + (s / endS) * (width - left - 160);
  const windows = Math.ceil(endS / windowS);
  const p99Series = routeGroups.map((group) =>
    Array.from({ length: windows }, (_, index) => {
      const inWindow = samples.filter(
        (s) => s.group === group && s.at / 1000 >= index * windowS && s.at / 1000 < (index + 1) * windowS,
      );
      return { s: (index + 1) * windowS, v: p99(inWindow.map((sample) => sample.ms)) };
    }).filter((point) => !Number.isNaN(point.v)),
  );
  const rssMax = Math.max(1, ...process.map((sample) => sample.rssMiB).filter(Number.isFinite)) * 1.1;
  const p99Max = Math.max(1, ...p99Series.flat().map((point) => point.v)) * 1.1;
  const line = (points: { s: number; v: number }[], top: number, max: number, color: string) =>
    `<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${points.map((p) => `${x(p.s).toFixed(1)},${(top + panel - (p.v / max) * panel).toFixed(1)}`).join(' ')}"/>`;
  const axis = (top: number, max: number, label: string) =>
    [
      `<line x1="${left}" y1="${top + panel}" x2="${x(endS)}" y2="${top + panel}" stroke="#888"/>`,
      `<line x1="${left}" y1="${top}" x2="${left}" y2="${top + panel}" stroke="#888"/>`,
      `<text x="${left - 5}" y="${top + 10}" text-anchor="end" font-size="11">${max.toFixed(0)}</text>`,
      `<text x="${left - 5}" y="${top + panel}" text-anchor="end" font-size="11">0</text>`,
      `<text x="${left}" y="${top - 6}" font-size="12">${label}</text>`,
      ...Array.from(
        { length: Math.floor(endS / 60) + 1 },
        (_, m) => `<text x="${x(m * 60)}" y="${top + panel + 14}" text-anchor="middle" font-size="10">${m}</text>`,
      ),
    ].join('');
  const top2 = panel + 70;
  const legend = routeGroups
    .map(
      (group, index) =>
        `<text x="${x(endS) + 12}" y="${top2 + 14 + index * 16}" font-size="11" fill="${colors[index]}">${group}</text>`,
    )
    .join('');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${top2 + panel + 40}" font-family="sans-serif">`,
    '<rect width="100%" height="100%" fill="white"/>',
    axis(20, rssMax, 'service RSS (MiB) over minutes'),
    line(
      process.filter((s) => Number.isFinite(s.rssMiB)).map((s) => ({ s: s.atS, v: s.rssMiB })),
      20,
      rssMax,
      colors[0]!,
    ),
    axis(top2, p99Max, `p99 latency per route group (ms, per ${windowS} s) over minutes`),
    ...p99Series.map((points, index) => line(points, top2, p99Max, colors[index]!)),
    legend,
    '</svg>',
  ].join('\n');
}
