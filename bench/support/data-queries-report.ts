// The tables and verdicts bench/data-queries.ts prints: printed, never asserted.
import type { PhaseBResult, ReadSeries, ShapeResult } from './data-queries-phases.ts';
import type { AnswerTally } from './data-queries-tally.ts';
import type { LatencyRecorder } from './percentiles.ts';
import { fixed, formatTable } from './table.ts';

export const targetP95Ms = 200;
export const targetRatio = 1.2;

function labelsOf(tally: AnswerTally): string {
  return [...tally.labels].map(([label, n]) => `${label} x${n}`).join(', ');
}

/** yes / refused / unserved / failed when every answer was one kind; mixed otherwise. */
function acceptedCell(result: ShapeResult): string {
  const n = result.all.count;
  const { outcomes } = result.tally;
  if (outcomes.accepted === n) return 'yes';
  for (const kind of ['refused', 'unserved', 'failed'] as const) if (outcomes[kind] === n) return `no (${kind})`;
  return `mixed (${outcomes.accepted}/${n})`;
}

/** The API took the query (accepted it, or failed at it) rather than refusing or not serving it. */
function taken(result: ShapeResult): boolean {
  return result.accepted.count > 0 || result.tally.outcomes.failed > 0;
}

/** Within the target: every answer a result, at p95 <= 200 ms. */
function withinTarget(result: ShapeResult): boolean {
  return result.tally.outcomes.failed === 0 && judged(result).percentile(95) <= targetP95Ms;
}

/** The latency a row is judged by: its accepted answers when it has some, else every answer. */
function judged(result: ShapeResult): LatencyRecorder {
  return result.accepted.count > 0 ? result.accepted : result.all;
}

export function phaseATable(results: ShapeResult[]): string {
  const baseline = results[0]!.all.percentile(50);
  return formatTable(
    ['query', 'n', 'items', 'accepted?', 'answers', 'p50 ms', 'p95 ms', 'p99 ms', 'x base p50', `p95 <= ${targetP95Ms} ms?`],
    results.map((result) => {
      const latency = judged(result);
      const verdict = !taken(result) ? 'n/a' : withinTarget(result) ? 'yes' : 'NO';
      return [
        result.shape.name,
        String(result.all.count),
        result.items === undefined ? '-' : String(result.items),
        acceptedCell(result),
        labelsOf(result.tally),
        fixed(latency.percentile(50), 1),
        fixed(latency.percentile(95), 1),
        fixed(latency.percentile(99), 1),
        fixed(latency.percentile(50) / baseline, 1),
        verdict,
      ];
    }),
  );
}

/** One line per answer that was not a result: what the API said. */
export function refusalLines(results: ShapeResult[]): string[] {
  return results.flatMap((result) =>
    [...result.tally.messages].map(([label, message]) => `  ${result.shape.name}: ${label}: ${message}`),
  );
}

export function phaseAVerdict(results: ShapeResult[]): string[] {
  const tookOn = results.slice(1).filter(taken);
  const missed = tookOn.filter((result) => !withinTarget(result));
  const worst = [...tookOn].sort((a, b) => judged(b).percentile(95) - judged(a).percentile(95))[0];
  const count = (kind: 'refused' | 'failed') => results.filter((result) => result.tally.outcomes[kind] > 0).length;
  return [
    `target: every accepted query p95 <= ${targetP95Ms} ms: ${missed.length === 0 ? 'met' : 'missed'} ` +
      `(${tookOn.length - missed.length} of the ${tookOn.length} shapes the API took on within it, every answer a result; ` +
      `worst: ${worst ? `${worst.shape.name}, p95 ${fixed(judged(worst).percentile(95), 0)} ms` : 'none'})`,
    `shapes with refused answers: ${count('refused')}; with failed answers: ${count('failed')}`,
  ];
}

/** The slowest shapes with accepted answers (by p95), the ones another tenant would run to hurt. */
export function slowestAccepted(results: ShapeResult[], count: number): ShapeResult[] {
  return results
    .slice(1)
    .filter((result) => result.accepted.count > 0 && result.shape.group !== 'batch')
    .sort((a, b) => b.accepted.percentile(95) - a.accepted.percentile(95))
    .slice(0, count);
}

export function phaseBTable(result: PhaseBResult, concurrency: number, place: string): string {
  const base = result.alone.latency;
  const row = (name: string, series: ReadSeries) => [
    name,
    String(series.latency.count),
    labelsOf(series.tally),
    fixed(series.latency.percentile(50), 2),
    fixed(series.latency.percentile(95), 2),
    fixed(series.latency.percentile(99), 2),
    fixed(series.latency.percentile(50) / base.percentile(50), 2),
    fixed(series.latency.percentile(95) / base.percentile(95), 2),
  ];
  return formatTable(
    [
      'tenant A: GET /v1/transfers ordinary, limit 50',
      'n',
      'answers',
      'p50 ms',
      'p95 ms',
      'p99 ms',
      'p50 x alone',
      'p95 x alone',
    ],
    [
      row('alone', result.alone),
      row(`while tenant B runs ${concurrency} loop(s) (${place})`, result.loaded),
      row('after tenant B stopped', result.after),
      ...result.burned.map(({ niceness, series }) =>
        row(`while a plain busy loop (no Blockyard work) runs at niceness ${niceness}`, series),
      ),
    ],
  );
}

export function phaseBVerdict(result: PhaseBResult): string[] {
  const ratio = result.loaded.latency.percentile(95) / result.alone.latency.percentile(95);
  const { hostile } = result;
  const seconds = hostile.ms / 1000;
  return [
    `tenant B: ${hostile.latency.count} answers in ${seconds.toFixed(1)} s (${fixed(hostile.latency.count / seconds, 1)}/s), ` +
      `p50 ${fixed(hostile.latency.percentile(50), 0)} ms, p95 ${fixed(hostile.latency.percentile(95), 0)} ms: ${labelsOf(hostile.tally)}`,
    ...[...hostile.tally.messages].map(([label, message]) => `  tenant B ${label}: ${message}`),
    `cores used, alone / while tenant B runs: ${coresLine(result.cores.alone, result.cores.loaded)}`,
    `target: tenant A's indexed read p95 under load <= ${targetRatio}x alone: ${ratio <= targetRatio ? 'met' : 'missed'} (${fixed(ratio, 2)}x)`,
  ];
}

/** Per process, e.g. `blockyard 0.31 / 0.92, postgres 0.12 / 0.41, ...`, and the sum. */
function coresLine(alone: Map<string, number>, loaded: Map<string, number>): string {
  const names = [...new Set([...alone.keys(), ...loaded.keys()])].filter(
    (name) => (alone.get(name) ?? 0) >= 0.005 || (loaded.get(name) ?? 0) >= 0.005,
  );
  const sum = (cores: Map<string, number>) => [...cores.values()].reduce((total, value) => total + value, 0);
  const pair = (a: number, b: number) => `${fixed(a, 2)} / ${fixed(b, 2)}`;
  return [
    ...names.map((name) => `${name} ${pair(alone.get(name) ?? 0, loaded.get(name) ?? 0)}`),
    `all ${pair(sum(alone), sum(loaded))}`,
  ].join(', ');
}
