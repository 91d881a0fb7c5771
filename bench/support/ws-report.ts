import { createLatencyRecorder, type LatencyRecorder } from './percentiles.ts';
import { fixed, formatTable } from './table.ts';
import type { ClientsReport } from './ws-protocol.ts';

/** One block mined during the measured window, with the times around its evm_mine call (monotonic µs). */
export interface MinedHead {
  number: number;
  sentUs: number;
  answeredUs: number;
}

export interface WsRun {
  heads: MinedHead[];
  /** One report per load process, in order, with its client count. */
  processes: { clients: number; report: ClientsReport }[];
  rss: { idleMiB: number; connectedMiB: number; maxMiB: number };
  targetP99Ms: number;
}

export interface WsSummary {
  text: string;
  missed: number;
  p99FromFirstMs: number;
}

/** Delays per head and per subscriber, missed heads and RSS, as a table and a few lines. */
export function summarizeWsRun(run: WsRun): WsSummary {
  const byNumber = new Map(run.heads.map((head) => [head.number, head]));
  const firstUs = new Map<number, number>();
  for (const { report } of run.processes) {
    for (const pairs of report.receipts) {
      for (let index = 0; index < pairs.length; index += 2) {
        const number = pairs[index]!;
        const at = pairs[index + 1]!;
        if (byNumber.has(number) && !(at >= (firstUs.get(number) ?? Number.POSITIVE_INFINITY))) firstUs.set(number, at);
      }
    }
  }

  const fromFirst = createLatencyRecorder();
  const fromAnswer = createLatencyRecorder();
  const lastPerHead = new Map<number, number>();
  const perProcess: LatencyRecorder[] = [];
  let expected = 0;
  let received = 0;
  let duplicates = 0;
  let outOfOrder = 0;
  let closed = 0;
  for (const { report } of run.processes) {
    const mine = createLatencyRecorder();
    perProcess.push(mine);
    closed += report.closes.length;
    for (const pairs of report.receipts) {
      expected += run.heads.length;
      const seen = new Set<number>();
      let previous = -1;
      for (let index = 0; index < pairs.length; index += 2) {
        const number = pairs[index]!;
        const at = pairs[index + 1]!;
        const head = byNumber.get(number);
        if (!head) continue;
        if (seen.has(number)) {
          duplicates++;
          continue;
        }
        seen.add(number);
        if (number < previous) outOfOrder++;
        previous = number;
        received++;
        const delayMs = (at - firstUs.get(number)!) / 1000;
        fromFirst.record(delayMs);
        mine.record(delayMs);
        fromAnswer.record((at - head.answeredUs) / 1000);
        lastPerHead.set(number, Math.max(lastPerHead.get(number) ?? 0, delayMs));
      }
    }
  }
  const firstFromAnswer = createLatencyRecorder();
  const roundTrip = createLatencyRecorder();
  const spread = createLatencyRecorder();
  for (const head of run.heads) {
    roundTrip.record((head.answeredUs - head.sentUs) / 1000);
    const first = firstUs.get(head.number);
    if (first !== undefined) firstFromAnswer.record((first - head.answeredUs) / 1000);
    const last = lastPerHead.get(head.number);
    if (last !== undefined) spread.record(last);
  }

  const row = (name: string, recorder: LatencyRecorder) => [
    name,
    String(recorder.count),
    ...[50, 95, 99, 100].map((p) => fixed(recorder.percentile(p), 2)),
  ];
  const rows = [
    row('every subscriber, from the first subscriber', fromFirst),
    row('every subscriber, from the evm_mine answer', fromAnswer),
    row('first subscriber, from the evm_mine answer', firstFromAnswer),
    row('last subscriber of each head, from the first', spread),
    ...run.processes.map(({ clients }, index) =>
      row(`  load process ${index + 1} (${clients} clients), from the first`, perProcess[index]!),
    ),
    row('evm_mine round trip (anvil, HTTP)', roundTrip),
  ];
  const table = formatTable(['delay', 'samples', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'], rows);
  const missed = expected - received;
  const p99 = fromFirst.percentile(99);
  const loops = run.processes
    .map(
      ({ report }, index) =>
        `process ${index + 1}: event loop ${fixed(report.eventLoopUse * 100, 0)}% busy, ${fixed(report.handlerMs, 0)} ms in message handlers`,
    )
    .join('; ');
  const lines = [
    table,
    '',
    `heads mined: ${run.heads.length}; receipts: ${received} of ${expected}; missed: ${missed}; duplicates: ${duplicates}; ` +
      `out of order: ${outOfOrder}; connections closed by the server: ${closed}; ` +
      `unexpected messages: ${run.processes.reduce((sum, { report }) => sum + report.unexpected, 0)}`,
    `load generators during the mining: ${loops}`,
    `blockyard RSS: ${fixed(run.rss.idleMiB, 0)} MiB before the clients, ${fixed(run.rss.connectedMiB, 0)} MiB with them subscribed, ` +
      `${fixed(run.rss.maxMiB, 0)} MiB max during the run`,
    '',
    'targets:',
    `  every subscriber within ${run.targetP99Ms} ms p99 of the first: ${fixed(p99, 2)} ms ${verdict(p99 <= run.targetP99Ms)}`,
    `  no missed heads: ${missed} ${verdict(missed === 0)}`,
    `  RSS <= 256 MiB: ${fixed(run.rss.maxMiB, 0)} MiB ${verdict(run.rss.maxMiB <= 256)}`,
  ];
  return { text: lines.join('\n'), missed, p99FromFirstMs: p99 };
}

function verdict(met: boolean): string {
  return met ? '(met)' : '(not met)';
}
