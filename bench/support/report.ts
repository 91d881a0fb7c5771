import type { Measured } from './measure.ts';
import { fixed, formatTable } from './table.ts';

/** A row still to be measured: named in the table so its place is visible. */
export interface PendingRow {
  name: string;
  reason: string;
}

/** The results table, Blockyard's added latency over anvil and the later targets. */
export function formatReport(input: {
  rows: Measured[];
  pending: PendingRow[];
  baseline: string;
  direct: string;
  proxied: string;
  /** The cache-hit row, if measured. */
  cached?: string;
  /** The cache-hit row of a key with all four allowlists, compared with `cached` (issue 24: >= 0.95x). */
  restricted?: string;
  connections: number;
}): string {
  const { rows, pending, connections } = input;
  const byName = new Map(rows.map((row) => [row.name, row]));
  const baseline = byName.get(input.baseline);
  const direct = byName.get(input.direct);
  const proxied = byName.get(input.proxied);
  const cached = input.cached === undefined ? undefined : byName.get(input.cached);
  const restricted = input.restricted === undefined ? undefined : byName.get(input.restricted);
  const ratio = (row: Measured) => (baseline ? row.many.rps / baseline.many.rps : Number.NaN);
  // What the throughput ratio would be if each server had a core to itself: hello-world's CPU per request over the row's.
  const cpuRatio = (row: Measured) => (baseline ? baseline.cpuUsPerRequest / row.cpuUsPerRequest : Number.NaN);

  const header = [
    'target',
    'req/s',
    'x hello',
    `p50@${connections} ms`,
    `p99@${connections} ms`,
    'p50@1 ms',
    'p99@1 ms',
    'CPU us/req',
    'CPU x hello',
    'non-2xx',
    'max RSS MiB',
  ];
  const measured = rows.map((row) => [
    row.name,
    fixed(row.many.rps, 0),
    fixed(ratio(row), 2),
    fixed(row.many.p50, 2),
    fixed(row.many.p99, 2),
    fixed(row.one.p50, 3),
    fixed(row.one.p99, 3),
    fixed(row.cpuUsPerRequest, 0),
    fixed(cpuRatio(row), 2),
    String(row.many.non2xx + row.one.non2xx),
    fixed(row.maxRssMiB, 0),
  ]);
  const waiting = pending.map((row) => [`${row.name} (${row.reason})`, '-', '-', '-', '-', '-', '-', '-', '-', '-', '-']);
  const lines = [formatTable(header, [...measured, ...waiting])];

  if (direct && proxied) {
    const addedP50 = proxied.one.p50 - direct.one.p50;
    const addedP99 = proxied.one.p99 - direct.one.p99;
    lines.push(
      '',
      `${proxied.name} added latency over ${direct.name} at 1 connection: p50 +${fixed(addedP50, 3)} ms, p99 +${fixed(addedP99, 3)} ms`,
      `${proxied.name} max RSS: ${fixed(proxied.maxRssMiB, 0)} MiB (${fixed(proxied.idleRssMiB, 0)} MiB before the load)`,
      '',
      'targets:',
      `  cache-miss throughput >= 0.60x hello-world: ${fixed(ratio(proxied), 2)}x ${verdict(ratio(proxied) >= 0.6)}` +
        ` (by CPU per request: ${fixed(cpuRatio(proxied), 2)}x)`,
      ...(cached
        ? [
            `  cache-hit throughput >= 0.90x hello-world: ${fixed(ratio(cached), 2)}x ${verdict(ratio(cached) >= 0.9)}` +
              ` (by CPU per request: ${fixed(cpuRatio(cached), 2)}x)`,
          ]
        : []),
      ...(cached && restricted ? [restrictedTarget(cached, restricted)] : []),
      `  added p50 at 1 connection <= 0.25 ms: ${fixed(addedP50, 3)} ms ${verdict(addedP50 <= 0.25)}`,
      `  added p99 at 1 connection <= 1 ms: ${fixed(addedP99, 3)} ms ${verdict(addedP99 <= 1)}`,
      `  RSS <= 256 MiB: ${fixed(Math.max(proxied.maxRssMiB, cached?.maxRssMiB ?? 0), 0)} MiB ${verdict(Math.max(proxied.maxRssMiB, cached?.maxRssMiB ?? 0) <= 256)}`,
    );
  }
  return lines.join('\n');
}

/** Issue 24: the cache hit of a key with all four allowlists keeps >= 0.95x of the unrestricted one's throughput. */
function restrictedTarget(cached: Measured, restricted: Measured): string {
  const ratio = restricted.many.rps / cached.many.rps;
  const byCpu = cached.cpuUsPerRequest / restricted.cpuUsPerRequest;
  return (
    `  cache hit with all four allowlists >= 0.95x the cache hit (same run): ${fixed(ratio, 2)}x ${verdict(ratio >= 0.95)}` +
    ` (by CPU per request: ${fixed(byCpu, 2)}x)`
  );
}

function verdict(met: boolean): string {
  return met ? '(met)' : '(not met)';
}
