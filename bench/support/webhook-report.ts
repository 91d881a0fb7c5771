// The webhook benchmark's report: markdown tables for latency and throughput, and the lines that say
// where the time went.
import { cpus } from 'node:os';
import { fixed } from './table.ts';
import type { BaselineRun } from './webhook-baseline.ts';
import type { DeliveryBatch } from './webhook-database.ts';

/** The service's own process in the CPU readings (its Postgres and anvil are counted apart). */
export const serviceLabel = 'blockyard (node)';

/**
 * Issue 37's: >= 5,000 deliveries a second logged and signed per worker (one process), head -> POST
 * p95 <= 100 ms (issue 9's were 2,000/s and 250 ms).
 */
export const targets = { latencyP95Ms: 100, deliveriesPerSecond: 5_000 } as const;

/** One latency distribution, in ms. */
export interface Distribution {
  name: string;
  values: number[];
  target?: string;
}

export interface LatencyRun {
  /** Blocks delivered, measured (after the warm-up ones). */
  rows: Distribution[];
  headline: Distribution;
  /** Deliveries whose head never came over the WebSocket (not measured), duplicates at the receiver. */
  missingHeads: number;
  duplicates: number;
  wsProblems: string[];
}

export interface ThroughputRun {
  hooks: number;
  deliveries: number;
  transfers: number;
  transactions: number;
  /** Time to queue them all (matcher done), from the first transfer sent. */
  queueS: number;
  concurrency: number;
  baselines: BaselineRun[];
  /** Resume (first PATCH sent) -> the receiver's last receipt; resume -> every delivery succeeded in the log. */
  receivedS: number;
  recordedS: number;
  /** The receiver's first -> last receipt. */
  steadyS: number;
  received: number;
  duplicates: number;
  deliveriesByStatus: Record<string, number>;
  attempts: { rows: number; ok: number };
  batches: DeliveryBatch[];
  /** Wall ms of the resume, for the batch timeline. */
  resumedWallMs: number;
  /** CPU ms during resume -> recorded, by process kind. */
  cpu: Map<string, number>;
}

export function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((cell, column) => Math.max(3, cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join(' | ')} |`;
  const rule = `|${widths.map((width, column) => (column === 0 ? `${'-'.repeat(width + 1)}-` : `${'-'.repeat(width + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const verdict = (met: boolean) => (met ? 'met' : 'NOT met');

export function formatLatencyReport(run: LatencyRun): { text: string; met: boolean } {
  const p95 = percentile(run.headline.values, 95);
  const met = run.headline.values.length > 0 && p95 <= targets.latencyP95Ms;
  const row = (entry: Distribution) => [
    entry.name,
    String(entry.values.length),
    fixed(percentile(entry.values, 50), 1),
    fixed(percentile(entry.values, 95), 1),
    fixed(percentile(entry.values, 99), 1),
    fixed(Math.max(...entry.values), 1),
    entry.target ?? '',
  ];
  const lines = [
    markdownTable(
      ['latency (new_block webhook)', 'blocks', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'target'],
      [row({ ...run.headline, target: `p95 <= ${targets.latencyP95Ms} ms: ${verdict(met)}` }), ...run.rows.map(row)],
    ),
    // A markdown table runs on to the next non-empty line.
    '',
    `deliveries without a head on the WebSocket (not measured): ${run.missingHeads}; duplicates at the receiver: ${run.duplicates}` +
      (run.wsProblems.length > 0 ? `; WebSocket problems: ${run.wsProblems.slice(0, 3).join('; ')}` : ''),
  ];
  return { text: lines.join('\n'), met };
}

export function formatThroughputReport(run: ThroughputRun): { text: string; met: boolean; consistent: boolean } {
  const baseline = run.baselines.reduce<BaselineRun | undefined>(
    (best, candidate) => (!best || candidate.count / candidate.seconds > best.count / best.seconds ? candidate : best),
    undefined,
  );
  const baseRate = baseline ? baseline.count / baseline.seconds : Number.NaN;
  const receivedRate = run.deliveries / run.receivedS;
  const recordedRate = run.deliveries / run.recordedS;
  const consistent =
    run.received === run.deliveries &&
    run.duplicates === 0 &&
    run.attempts.rows === run.deliveries &&
    run.attempts.ok === run.deliveries &&
    (run.deliveriesByStatus.succeeded ?? 0) === run.deliveries;
  const met = consistent && recordedRate >= targets.deliveriesPerSecond;
  const serviceCpuUs = ((run.cpu.get(serviceLabel) ?? Number.NaN) * 1000) / run.deliveries;
  const rows: string[][] = [
    ...run.baselines.map((entry, index) => [
      `bare undici loop, ${run.concurrency} in flight, no database (run ${index + 1}${entry === baseline ? ', baseline' : ''})`,
      String(entry.count),
      fixed(entry.seconds, 2),
      fixed(entry.count / entry.seconds, 0),
      fixed(entry.count / entry.seconds / baseRate, 2),
      fixed(entry.cpuUsPerPost, 0),
      entry.errors > 0 ? `${entry.errors} errors (${entry.firstError})` : '',
    ]),
    [
      `blockyard, ${run.hooks} webhooks: resume -> every delivery received`,
      String(run.received),
      fixed(run.receivedS, 2),
      fixed(receivedRate, 0),
      fixed(receivedRate / baseRate, 2),
      '',
      '',
    ],
    [
      `blockyard, ${run.hooks} webhooks: resume -> every delivery logged as succeeded`,
      String(run.deliveriesByStatus.succeeded ?? 0),
      fixed(run.recordedS, 2),
      fixed(recordedRate, 0),
      fixed(recordedRate / baseRate, 2),
      fixed(serviceCpuUs, 0),
      `>= ${targets.deliveriesPerSecond.toLocaleString('en-US')}/s: ${verdict(met)}`,
    ],
    [
      'blockyard: first -> last delivery received',
      String(run.received),
      fixed(run.steadyS, 2),
      fixed(run.received / run.steadyS, 0),
      fixed(run.received / run.steadyS / baseRate, 2),
      '',
      '',
    ],
  ];
  const postgresCpuUs = ((run.cpu.get('postgres') ?? Number.NaN) * 1000) / run.deliveries;
  const perWorker = markdownTable(
    [
      'per worker (one process: every role, its 8 delivery slots)',
      'deliveries/s logged',
      'service CPU us/delivery',
      'Postgres CPU us/delivery',
      'together',
      'lost',
      'duplicates',
      'target',
    ],
    [
      [
        `resume -> ${run.deliveries} deliveries logged as succeeded, signed`,
        fixed(recordedRate, 0),
        fixed(serviceCpuUs, 0),
        fixed(postgresCpuUs, 0),
        fixed(serviceCpuUs + postgresCpuUs, 0),
        String(run.deliveries - Math.min(run.received, run.deliveriesByStatus.succeeded ?? 0)),
        String(run.duplicates + Math.max(0, run.attempts.rows - run.deliveries)),
        `>= ${targets.deliveriesPerSecond.toLocaleString('en-US')}/s: ${verdict(met)}`,
      ],
    ],
  );
  const lines = [
    perWorker,
    '',
    markdownTable(
      [
        'throughput (token_transfer webhooks)',
        'deliveries',
        'seconds',
        'per second',
        'x baseline',
        'sender CPU us/POST',
        'target',
      ],
      rows,
    ),
    '',
    "sender CPU: of the baseline loop's process, or of the Blockyard process (its Postgres is counted apart, below), per POST",
    `queued while paused: ${run.transfers} BenchToken transfers in ${run.transactions} transactions x ${run.hooks} webhooks = ` +
      `${run.deliveries} deliveries, all queued ${fixed(run.queueS, 1)} s after the first transaction was sent`,
    `delivery log: ${run.attempts.rows} webhook_attempts rows (${run.attempts.ok} answered 2xx) for ${run.deliveries} deliveries; ` +
      `deliveries by status ${JSON.stringify(run.deliveriesByStatus)}; received ${run.received}, duplicates ${run.duplicates}` +
      (consistent ? ' (consistent)' : ' (MISMATCH)'),
    ...batchLines(run),
    cpuLine(run),
  ];
  return { text: lines.join('\n'), met, consistent };
}

/** Where a delivery transaction's time goes, from the timestamps the delivery log keeps. */
function batchLines(run: ThroughputRun): string[] {
  const { batches } = run;
  if (batches.length === 0) return ['delivery transactions: none found'];
  const claim = batches.map((batch) => batch.firstSendMs - batch.startedMs);
  const send = batches.map((batch) => batch.lastAnswerMs - batch.firstSendMs);
  const after = batches.flatMap((batch) => (batch.nextStartedMs === null ? [] : [batch.nextStartedMs - batch.lastAnswerMs]));
  const sizes = batches.map((batch) => batch.deliveries);
  const first = Math.min(...batches.map((batch) => batch.startedMs));
  const last = Math.max(...batches.map((batch) => batch.lastAnswerMs));
  const sendMs = batches.reduce((sum, batch) => sum + batch.sendMsSum, 0);
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const stat = (values: number[]) =>
    `p50 ${fixed(percentile(values, 50), 0)} / p95 ${fixed(percentile(values, 95), 0)} ms (sum ${fixed(sum(values) / 1000, 1)} s)`;
  return [
    `delivery transactions: ${batches.length}, ${fixed(sum(sizes) / batches.length, 0)} deliveries each on average; the first started ` +
      `${fixed(first - run.resumedWallMs, 0)} ms after the resume; transactions open at once on average ${fixed(sum(claim.map((c, i) => c + send[i]!)) / (last - first), 2)} ` +
      `(claim + send only)`,
    `  per transaction: start -> first POST (lock, claim, secrets) ${stat(claim)}; first POST -> last answer ${stat(send)}; ` +
      `last answer -> the webhook's next transaction (log insert, update, commit, next tick) ${stat(after)}`,
    `  POSTs in flight on average ${fixed(sendMs / (last - first), 1)} (sum of the logged POST latencies ${fixed(sendMs / 1000, 1)} s ` +
      `over ${fixed((last - first) / 1000, 2)} s); mean POST latency ${fixed(sendMs / sum(sizes), 2)} ms`,
  ];
}

function cpuLine(run: ThroughputRun): string {
  const window = run.recordedS * 1000;
  const entries = [...run.cpu].filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]);
  const total = entries.reduce((sum, [, ms]) => sum + ms, 0);
  const cores = cpus().length;
  return (
    `CPU during resume -> logged (${fixed(run.recordedS, 2)} s; ${cores} cores = ${fixed(cores * run.recordedS, 2)} CPU-s): ` +
    entries
      .map(
        ([name, ms]) =>
          `${name} ${fixed(ms / 1000, 2)} s (${fixed((100 * ms) / window, 0)}% of a core, ${fixed((ms * 1000) / run.deliveries, 0)} us/delivery)`,
      )
      .join(', ') +
    `; total ${fixed(total / 1000, 2)} s`
  );
}
