// The tables of bench:dashboard: cold loads per page against the static baseline, and each page's
// JavaScript against the budget.
import type { PageSize } from '../../scripts/web-bundle-sizes.ts';
import type { ColdLoad } from './dashboard-loads.ts';
import { createLatencyRecorder } from './percentiles.ts';
import { fixed, formatTable } from './table.ts';

export interface LoadRow {
  name: string;
  samples: ColdLoad[];
}

/** The target for the first page a user sees, cold, on the devnet. */
export const firstPageTargetMs = 1_000;

function percentileOf(values: number[], p: number): number {
  const recorder = createLatencyRecorder(values.length);
  for (const value of values) recorder.record(value);
  return recorder.percentile(p);
}

const metrics = ['loadMs', 'fcpMs', 'readyMs'] as const;

export function formatLoadTable(rows: LoadRow[], baseline: string): string {
  const base = rows.find((row) => row.name === baseline);
  if (!base) throw new Error(`no baseline row ${baseline}`);
  const p50 = (row: LoadRow, metric: (typeof metrics)[number]) =>
    percentileOf(
      row.samples.map((sample) => sample[metric]),
      50,
    );
  const header = ['page (cold)', 'n'];
  for (const label of ['load', 'FCP', 'ready']) header.push(`${label} p50 ms`, `${label} p95 ms`, `${label} x base`);
  header.push('KiB transferred', 'requests');
  const body = rows.map((row) => {
    const cells = [row.name, String(row.samples.length)];
    for (const metric of metrics) {
      const values = row.samples.map((sample) => sample[metric]);
      cells.push(
        fixed(percentileOf(values, 50), 0),
        fixed(percentileOf(values, 95), 0),
        fixed(p50(row, metric) / p50(base, metric), 2),
      );
    }
    cells.push(
      fixed(
        percentileOf(
          row.samples.map((sample) => sample.bytes),
          50,
        ) / 1024,
        1,
      ),
      fixed(
        percentileOf(
          row.samples.map((sample) => sample.requests),
          50,
        ),
        0,
      ),
    );
    return cells;
  });
  return formatTable(header, body);
}

/** `met` when every measured page of the service is loaded and ready within the target at p95. */
export function formatTargetLine(rows: LoadRow[]): string {
  const p95s = rows.map((row) => ({
    name: row.name,
    ms: percentileOf(
      row.samples.map((sample) => Math.max(sample.loadMs, sample.readyMs)),
      95,
    ),
  }));
  const met = p95s.every((row) => row.ms < firstPageTargetMs);
  const detail = p95s.map((row) => `${row.name} ${fixed(row.ms, 0)} ms`).join(', ');
  return `first page load (cold) < ${firstPageTargetMs / 1000} s: ${met ? 'met' : 'missed'} (p95 of the later of load and ready: ${detail})`;
}

export function formatBundleTable(sizes: PageSize[], budgetBytes: number): string {
  const rows = sizes.map((size) => [
    size.page,
    String(size.files.length),
    fixed(size.gzipBytes / 1024, 1),
    fixed((size.gzipBytes / budgetBytes) * 100, 0),
    size.gzipBytes <= budgetBytes ? 'ok' : 'over',
  ]);
  return formatTable(['page JavaScript (entry + page chunk)', 'files', 'kB gzipped', '% of budget', 'verdict'], rows);
}
