import { createLatencyRecorder, type LatencyRecorder } from './percentiles.ts';
import { fixed, formatTable } from './table.ts';
import type { ClientsReport } from './ws-protocol.ts';

/** One block mined during a measured window, with the times around its mining call (evm_mine, or the transaction that emits the logs) (monotonic µs). */
export interface MinedHead {
  number: number;
  sentUs: number;
  answeredUs: number;
}

/** The servers a run compares: the raw fan-out baseline and Blockyard, measured in turns. */
export type WsTarget = 'baseline' | 'blockyard';

/** One measured window: every client subscribed to one server while blocks were mined. */
export interface WsPhase {
  target: WsTarget;
  round: number;
  /** 1-minute load average when the phase started. */
  loadAverage: number;
  heads: MinedHead[];
  /** One report per load process, in order, with its client count. */
  processes: { clients: number; report: ClientsReport }[];
  /** CPU time (user + system, all threads) the serving process used during the window. */
  serverCpuMs: number;
}

export interface WsRun {
  phases: WsPhase[];
  rss: { idleMiB: number; connectedMiB: number; maxMiB: number };
  /** Background CPU of each server with no client, ms per second (timers, polls), measured before the phases. */
  idleCpuMsPerS: Record<WsTarget, number>;
  targetP99Ms: number;
  /** Above 1,000 subscribers (issue 37): every subscriber's p99 from the node's block, and memory per subscriber. */
  manyTargetP99Ms?: number;
}

export interface WsSummary {
  text: string;
  missed: number;
  p99FromFirstMs: number;
}

export const targetNames: Record<WsTarget, string> = {
  baseline: 'raw fan-out (one pre-framed write each)',
  blockyard: 'blockyard',
};

/** Delays of every head to every subscriber, from several windows pooled. */
interface Delays {
  /** Receipt minus the earliest receipt of that head by any subscriber. */
  fromFirst: LatencyRecorder;
  /** Receipt minus the time the benchmark got anvil's answer to the mining call. */
  fromAnswer: LatencyRecorder;
  firstFromAnswer: LatencyRecorder;
  /** Per head: its last subscriber's delay from the first. */
  lastOfHead: LatencyRecorder;
  perProcess: LatencyRecorder[];
  roundTrip: LatencyRecorder;
  expected: number;
  received: number;
  duplicates: number;
  outOfOrder: number;
  closed: number;
  unexpected: number;
  cpuMs: number;
  eventLoop: string[];
}

function emptyDelays(): Delays {
  return {
    fromFirst: createLatencyRecorder(),
    fromAnswer: createLatencyRecorder(),
    firstFromAnswer: createLatencyRecorder(),
    lastOfHead: createLatencyRecorder(),
    perProcess: [],
    roundTrip: createLatencyRecorder(),
    expected: 0,
    received: 0,
    duplicates: 0,
    outOfOrder: 0,
    closed: 0,
    unexpected: 0,
    cpuMs: 0,
    eventLoop: [],
  };
}

/** Adds one window's receipts to `into`. */
function addPhase(phase: WsPhase, into: Delays): void {
  const byNumber = new Map(phase.heads.map((head) => [head.number, head]));
  const firstUs = new Map<number, number>();
  for (const { report } of phase.processes) {
    for (const pairs of report.receipts) {
      for (let index = 0; index < pairs.length; index += 2) {
        const number = pairs[index]!;
        const at = pairs[index + 1]!;
        if (byNumber.has(number) && !(at >= (firstUs.get(number) ?? Number.POSITIVE_INFINITY))) firstUs.set(number, at);
      }
    }
  }
  const lastOfHead = new Map<number, number>();
  phase.processes.forEach(({ report }, processIndex) => {
    into.perProcess[processIndex] ??= createLatencyRecorder();
    const mine = into.perProcess[processIndex]!;
    into.closed += report.closes.length;
    into.unexpected += report.unexpected;
    into.eventLoop.push(
      `${phase.target} round ${phase.round} process ${processIndex + 1}: event loop ${fixed(report.eventLoopUse * 100, 0)}% busy, ` +
        `${fixed(report.handlerMs, 0)} ms in message handlers`,
    );
    for (const pairs of report.receipts) {
      into.expected += phase.heads.length;
      const seen = new Set<number>();
      let previous = -1;
      for (let index = 0; index < pairs.length; index += 2) {
        const number = pairs[index]!;
        const at = pairs[index + 1]!;
        const head = byNumber.get(number);
        if (!head) continue;
        if (seen.has(number)) {
          into.duplicates++;
          continue;
        }
        seen.add(number);
        if (number < previous) into.outOfOrder++;
        previous = number;
        into.received++;
        const delayMs = (at - firstUs.get(number)!) / 1000;
        into.fromFirst.record(delayMs);
        mine.record(delayMs);
        into.fromAnswer.record((at - head.answeredUs) / 1000);
        lastOfHead.set(number, Math.max(lastOfHead.get(number) ?? 0, delayMs));
      }
    }
  });
  for (const head of phase.heads) {
    into.roundTrip.record((head.answeredUs - head.sentUs) / 1000);
    const first = firstUs.get(head.number);
    if (first !== undefined) into.firstFromAnswer.record((first - head.answeredUs) / 1000);
    const last = lastOfHead.get(head.number);
    if (last !== undefined) into.lastOfHead.record(last);
  }
  into.cpuMs += phase.serverCpuMs;
}

const targets: WsTarget[] = ['baseline', 'blockyard'];

/**
 * The run as tables: both servers side by side (delays pooled over their windows, ratios against
 * the baseline), each window on its own line with the load average it ran under, then the detail.
 */
export function summarizeWsRun(run: WsRun): WsSummary {
  const delays = { baseline: emptyDelays(), blockyard: emptyDelays() };
  for (const phase of run.phases) addPhase(phase, delays[phase.target]);
  const base = delays.baseline;
  const cpuPerMessageUs = (d: Delays) => (d.received > 0 ? (d.cpuMs * 1000) / d.received : Number.NaN);
  const rounds = (target: WsTarget) => run.phases.filter((phase) => phase.target === target).length;

  const main = formatTable(
    [
      'server',
      'windows',
      'receipts',
      'p50 ms',
      'p95 ms',
      'p99 ms',
      'max ms',
      'p99 x baseline',
      'last of a head p50 ms',
      'CPU us/msg',
      'CPU x baseline',
    ],
    targets.map((target) => {
      const d = delays[target];
      return [
        targetNames[target],
        String(rounds(target)),
        `${d.received}/${d.expected}`,
        ...[50, 95, 99, 100].map((p) => fixed(d.fromFirst.percentile(p), 2)),
        fixed(d.fromFirst.percentile(99) / base.fromFirst.percentile(99), 2),
        fixed(d.lastOfHead.percentile(50), 2),
        fixed(cpuPerMessageUs(d), 1),
        fixed(cpuPerMessageUs(d) / cpuPerMessageUs(base), 2),
      ];
    }),
  );

  const perWindow = formatTable(
    ['window', 'load avg', 'p50 ms', 'p99 ms', 'max ms', 'last of a head p50 ms', 'CPU us/msg'],
    run.phases.map((phase) => {
      const d = emptyDelays();
      addPhase(phase, d);
      return [
        `round ${phase.round}: ${targetNames[phase.target]}`,
        fixed(phase.loadAverage, 2),
        ...[50, 99, 100].map((p) => fixed(d.fromFirst.percentile(p), 2)),
        fixed(d.lastOfHead.percentile(50), 2),
        fixed(cpuPerMessageUs(d), 1),
      ];
    }),
  );

  const row = (name: string, recorder: LatencyRecorder) => [
    name,
    String(recorder.count),
    ...[50, 95, 99, 100].map((p) => fixed(recorder.percentile(p), 2)),
  ];
  const detail = formatTable(
    ['delay', 'samples', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
    targets.flatMap((target) => {
      const d = delays[target];
      return [
        row(`${target}: every subscriber, from the first subscriber`, d.fromFirst),
        row(`${target}: every subscriber, from the mining answer`, d.fromAnswer),
        row(`${target}: first subscriber, from the mining answer`, d.firstFromAnswer),
        row(`${target}: last subscriber of each head, from the first`, d.lastOfHead),
        ...d.perProcess.map((recorder, index) => row(`${target}:   load process ${index + 1}, from the first`, recorder)),
        row(`${target}: mining round trip (anvil, HTTP)`, d.roundTrip),
      ];
    }),
  );

  const blockyard = delays.blockyard;
  const missed = targets.reduce((sum, target) => sum + delays[target].expected - delays[target].received, 0);
  const p99 = blockyard.fromFirst.percentile(99);
  const counts = (target: WsTarget) => {
    const d = delays[target];
    return (
      `${target}: receipts ${d.received} of ${d.expected}; missed ${d.expected - d.received}; duplicates ${d.duplicates}; ` +
      `out of order ${d.outOfOrder}; closed by the server ${d.closed}; unexpected messages ${d.unexpected}`
    );
  };
  const lines = [
    main,
    '',
    'delays are per head and subscriber, from the first subscriber to get that head; CPU is the serving',
    'process, user + system, over each mining window, per message delivered',
    '',
    perWindow,
    '',
    detail,
    '',
    counts('baseline'),
    counts('blockyard'),
    `idle CPU (no clients, before the windows): baseline ${fixed(run.idleCpuMsPerS.baseline, 1)} ms/s, ` +
      `blockyard ${fixed(run.idleCpuMsPerS.blockyard, 1)} ms/s`,
    'load generators:',
    ...[...base.eventLoop, ...blockyard.eventLoop].map((line) => `  ${line}`),
    `blockyard RSS: ${fixed(run.rss.idleMiB, 0)} MiB before the clients, ${fixed(run.rss.connectedMiB, 0)} MiB with them subscribed, ` +
      `${fixed(run.rss.maxMiB, 0)} MiB max during the run`,
    '',
    'targets:',
    ...(run.manyTargetP99Ms === undefined
      ? [
          `  blockyard: every subscriber within ${run.targetP99Ms} ms p99 of the first: ${fixed(p99, 2)} ms ${verdict(p99 <= run.targetP99Ms)} ` +
            `(baseline in the same run: ${fixed(base.fromFirst.percentile(99), 2)} ms)`,
          `  blockyard RSS <= 256 MiB: ${fixed(run.rss.maxMiB, 0)} MiB ${verdict(run.rss.maxMiB <= 256)}`,
        ]
      : manySubscriberLines(run, blockyard, base)),
    `  no missed heads: ${missed} ${verdict(missed === 0)}`,
  ];
  return { text: lines.join('\n'), missed, p99FromFirstMs: p99 };
}

/** Issue 37's lines: the delay from the node's block, and what an idle subscriber costs in memory. */
function manySubscriberLines(run: WsRun, blockyard: Delays, base: Delays): string[] {
  const subscribers = run.phases.find((phase) => phase.target === 'blockyard')?.processes.reduce((n, p) => n + p.clients, 0) ?? 0;
  const p99 = blockyard.fromAnswer.percentile(99);
  const perSubscriberKiB = ((run.rss.connectedMiB - run.rss.idleMiB) * 1024) / subscribers;
  return [
    `  blockyard: every subscriber within ${run.manyTargetP99Ms} ms p99 of the node's block (the mining call's answer): ` +
      `${fixed(p99, 2)} ms ${verdict(p99 <= (run.manyTargetP99Ms ?? 0))} (baseline: ${fixed(base.fromAnswer.percentile(99), 2)} ms)`,
    `  memory per subscribed, idle client: ${fixed(perSubscriberKiB, 1)} KiB (RSS with the ${subscribers} subscribed, less RSS before them)`,
  ];
}

function verdict(met: boolean): string {
  return met ? '(met)' : '(not met)';
}
