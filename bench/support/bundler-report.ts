// The bundler benchmark's report: markdown tables of latency, inclusion and gas accuracy per bundler
// and kind of op, and whether Blockyard met each target.
import type { GasSplit } from './bundler-gas-split.ts';
import type { OpKind, OpSample } from './bundler-ops.ts';
import type { SendReplay } from './bundler-send-replay.ts';
import { createLatencyRecorder } from './percentiles.ts';
import { fixed } from './table.ts';
import { markdownTable } from './webhook-report.ts';

export const targets = { accuracyMin: 0.9, accuracyMax: 1.0, blocksAfterHeadP95: 1 } as const;

/** Blockyard as `npm start` runs it: its bundler's ERC-7562 rules on. */
export const subject = 'blockyard';
/** Blockyard with bundler.safe_mode false: the like-for-like peer of Alto, which cannot run its rules on anvil. */
export const subjectRulesOff = 'blockyard-rules-off';
export const peer = 'alto';
/** Blockyard's send p50 with its rules off may be at most this much of Alto's (Alto runs without rules). */
export const sendRatioMax = 1.1;

function percentile(values: readonly number[], p: number): number {
  const recorder = createLatencyRecorder(values.length + 1);
  for (const value of values) recorder.record(value);
  return recorder.percentile(p);
}

/** actualGasUsed over the limits the bundler estimated (what the sender is charged against what it must prefund). */
export const accuracyOf = (sample: OpSample) =>
  Number(sample.actualGasUsed) / Number(sample.preVerificationGas + sample.verificationGasLimit + sample.callGasLimit);

const medianOf = (values: readonly bigint[]) => (values.length === 0 ? Number.NaN : percentile(values.map(Number), 50));

export interface BundlerReport {
  text: string;
  met: boolean;
  /** One line per target: met or missed, with the numbers. */
  verdicts: string[];
}

export interface Diagnostics {
  /** performance.now() when each block was first seen on anvil. */
  arrivals: ReadonlyMap<bigint, number>;
  /** By bundle transaction hash. */
  splits: ReadonlyMap<string, GasSplit>;
  /** eth_chainId round trips per bundler (ms): the floor of HTTP, routing and authentication. */
  floor: ReadonlyMap<string, number[]>;
  /** Blockyard's send-path node calls replayed, by bundle transaction hash. */
  replays: ReadonlyMap<string, SendReplay>;
  /** When Blockyard logged each bundle as sent (wall ms), by transaction hash (lower case). */
  bundleSent: ReadonlyMap<string, number>;
}

export function formatBundlerReport(
  samples: readonly OpSample[],
  bundlers: readonly string[],
  diagnostics: Diagnostics,
): BundlerReport {
  const of = (bundler: string, kind?: OpKind) =>
    samples.filter((sample) => sample.bundler === bundler && (kind === undefined || sample.kind === kind));
  const groups: { bundler: string; kind?: OpKind; label: string }[] = bundlers.flatMap((bundler) => [
    { bundler, kind: 'deploy' as const, label: `${bundler}, deploy ops` },
    { bundler, kind: 'plain' as const, label: `${bundler}, plain ops` },
    { bundler, label: `${bundler}, all ops` },
  ]);
  const ms = (values: number[], p: number) => fixed(percentile(values, p), 1);

  const latency = markdownTable(
    ['latency (ms)', 'ops', 'estimate p50', 'estimate p95', 'send p50', 'send p95', 'send -> receipt p50', 'send -> receipt p95'],
    groups.map(({ bundler, kind, label }) => {
      const rows = of(bundler, kind);
      const estimate = rows.map((row) => row.estimateMs);
      const send = rows.map((row) => row.sendMs);
      const receipt = rows.map((row) => row.receiptMs);
      return [
        label,
        String(rows.length),
        ms(estimate, 50),
        ms(estimate, 95),
        ms(send, 50),
        ms(send, 95),
        ms(receipt, 50),
        ms(receipt, 95),
      ];
    }),
  );

  const inclusion = markdownTable(
    ['inclusion (blocks after the head at send)', 'ops', 'next block', '2nd block', 'later', 'p50', 'p95'],
    groups.map(({ bundler, kind, label }) => {
      const rows = of(bundler, kind);
      const after = rows.map((row) => Number(row.block - row.headAtSend));
      return [
        label,
        String(rows.length),
        String(after.filter((value) => value <= 1).length),
        String(after.filter((value) => value === 2).length),
        String(after.filter((value) => value > 2).length),
        fixed(percentile(after, 50), 0),
        fixed(percentile(after, 95), 0),
      ];
    }),
  );

  const accuracy = markdownTable(
    [
      'gas (medians)',
      'ops',
      'preVerificationGas',
      'verificationGasLimit',
      'callGasLimit',
      'actualGasUsed',
      'accuracy min',
      'p50',
      'max',
      'verification used',
      'execution used',
      'account call frame',
      'bundle tx gasUsed - actualGasUsed',
    ],
    groups
      .filter((group) => group.kind !== undefined)
      .map(({ bundler, kind, label }) => {
        const rows = of(bundler, kind);
        const ratios = rows.map(accuracyOf);
        const overhead = rows.map((row) => Number(row.bundleGasUsed - row.actualGasUsed));
        const splits = rows.flatMap((row) => {
          const split = diagnostics.splits.get(row.bundleTx);
          return split ? [split] : [];
        });
        return [
          label,
          String(rows.length),
          fixed(medianOf(rows.map((row) => row.preVerificationGas)), 0),
          fixed(medianOf(rows.map((row) => row.verificationGasLimit)), 0),
          fixed(medianOf(rows.map((row) => row.callGasLimit)), 0),
          fixed(medianOf(rows.map((row) => row.actualGasUsed)), 0),
          fixed(Math.min(...ratios), 3),
          fixed(percentile(ratios, 50), 3),
          fixed(Math.max(...ratios), 3),
          fixed(medianOf(splits.map((split) => split.verificationUsed)), 0),
          fixed(medianOf(splits.map((split) => split.executionUsed)), 0),
          fixed(medianOf(splits.map((split) => split.callFrameUsed)), 0),
          fixed(percentile(overhead, 50), 0),
        ];
      }),
  );

  const timing = markdownTable(
    [
      'timing (ms)',
      'ops',
      'eth_chainId p50 (floor)',
      'left to next block at send: least of those that made it',
      'most of those that missed',
      'its block seen -> receipt p50',
      'p95',
    ],
    bundlers.map((bundler) => {
      const rows = of(bundler);
      const left = (row: OpSample) => {
        const next = diagnostics.arrivals.get(row.headAtSend + 1n);
        return next === undefined ? Number.NaN : next - row.sendAt;
      };
      const made = rows.filter((row) => row.block - row.headAtSend <= 1n).map(left);
      const missed = rows.filter((row) => row.block - row.headAtSend > 1n).map(left);
      const afterBlock = rows.flatMap((row) => {
        const seen = diagnostics.arrivals.get(row.block);
        return seen === undefined ? [] : [row.receiptAt - seen];
      });
      return [
        `${bundler}, all ops`,
        String(rows.length),
        ms(diagnostics.floor.get(bundler) ?? [], 50),
        made.length > 0 ? fixed(Math.min(...made), 0) : '-',
        missed.length > 0 ? fixed(Math.max(...missed), 0) : '-',
        ms(afterBlock, 50),
        ms(afterBlock, 95),
      ];
    }),
  );

  const kinds = ['deploy', 'plain'] as const;
  const breakdownRows: [string, (row: OpSample) => number | undefined][] = [
    ['eth_sendUserOperation, as measured', (row) => row.sendMs],
    ['  replayed alone: head block (at most every 500 ms)', (row) => diagnostics.replays.get(row.bundleTx)?.pointReadsMs],
    [
      '  replayed alone: simulation (rules on: with the ERC-7562 check, 2 tracers at once)',
      (row) => {
        const replay = diagnostics.replays.get(row.bundleTx);
        return replay ? replay.traceMs + replay.simulateValidationMs : undefined;
      },
    ],
    ["  replayed alone: eth_call of the op's call", (row) => diagnostics.replays.get(row.bundleTx)?.callCheckMs],
    [
      'send answered -> bundle sent (service log)',
      (row) => {
        const at = diagnostics.bundleSent.get(row.bundleTx.toLowerCase());
        return at === undefined ? undefined : at - row.sentWallMs;
      },
    ],
    [
      'its block seen -> receipt visible',
      (row) => {
        const seen = diagnostics.arrivals.get(row.block);
        return seen === undefined ? undefined : row.receiptAt - seen;
      },
    ],
  ];
  const breakdownOf = (bundler: string) =>
    markdownTable(
      [`${bundler} send and bundling (ms)`, ...kinds.flatMap((kind) => [`${kind} p50`, `${kind} p95`])],
      [
        ...breakdownRows.map(([name, pick]) => [
          name,
          ...kinds.flatMap((kind) => {
            const values = of(bundler, kind).flatMap((row) => {
              const value = pick(row);
              return value === undefined ? [] : [value];
            });
            return [ms(values, 50), ms(values, 95)];
          }),
        ]),
        ...(
          [
            ['the ERC-7562 check: traces asked (count, not ms)', (replay: SendReplay) => replay.traceCalls],
            ['the traces: KB of JSON (not ms)', (replay: SendReplay) => replay.traceBytes / 1024],
          ] as const
        ).map(([name, pick]) => [
          name,
          ...kinds.flatMap((kind) => {
            const values = of(bundler, kind).flatMap((row) => {
              const replay = diagnostics.replays.get(row.bundleTx);
              return replay ? [pick(replay)] : [];
            });
            return [fixed(percentile(values, 50), 0), fixed(percentile(values, 95), 0)];
          }),
        ]),
      ],
    );
  const breakdowns = [subject, subjectRulesOff].filter((bundler) => bundlers.includes(bundler)).map(breakdownOf);

  // The verdicts: Blockyard with its rules off against Alto (the same work on both sides), Blockyard as
  // it runs by default beside it; inclusion and accuracy for both.
  const verdicts: string[] = [];
  let met = true;
  const theirs = of(peer);
  const ours = [subjectRulesOff, subject].filter((bundler) => bundlers.includes(bundler));
  for (const bundler of ours) {
    const mine = of(bundler);
    const a = mine.map((row) => row.estimateMs);
    const b = theirs.map((row) => row.estimateMs);
    const ok = theirs.length > 0 && percentile(a, 50) <= percentile(b, 50) && percentile(a, 95) <= percentile(b, 95);
    met &&= ok;
    verdicts.push(
      `${bundler}: eth_estimateUserOperationGas latency no worse than Alto's (p50 and p95, all ops): ${ok ? 'met' : 'missed'} ` +
        `(${ms(a, 50)} / ${ms(a, 95)} ms, alto ${ms(b, 50)} / ${ms(b, 95)} ms)`,
    );
  }
  for (const bundler of ours) {
    const a = of(bundler).map((row) => row.sendMs);
    const b = theirs.map((row) => row.sendMs);
    const ratio = percentile(a, 50) / percentile(b, 50);
    const figures = `${ms(a, 50)} / ${ms(a, 95)} ms p50 / p95, alto ${ms(b, 50)} / ${ms(b, 95)} ms: ${fixed(ratio, 2)}x at p50, ${fixed(percentile(a, 95) / percentile(b, 95), 2)}x at p95`;
    if (bundler === subjectRulesOff) {
      const ok = theirs.length > 0 && ratio <= sendRatioMax;
      met &&= ok;
      verdicts.push(
        `${bundler}: eth_sendUserOperation within ${Math.round((sendRatioMax - 1) * 100)}% of Alto's at p50, rules off on both: ${ok ? 'met' : 'missed'} (${figures})`,
      );
    } else {
      verdicts.push(
        `${bundler}: eth_sendUserOperation with the ERC-7562 rules on (reported; Alto cannot run its rules on anvil): ${figures}`,
      );
    }
  }
  for (const bundler of ours) {
    const mine = of(bundler);
    const after = mine.map((row) => Number(row.block - row.headAtSend));
    const inclusionOk = mine.length > 0 && percentile(after, 95) <= targets.blocksAfterHeadP95;
    met &&= inclusionOk;
    verdicts.push(
      `${bundler}: send -> receipt within the next block (p95): ${inclusionOk ? 'met' : 'missed'} ` +
        `(${after.filter((value) => value <= 1).length} of ${after.length} in the next block, p95 ${fixed(percentile(after, 95), 0)} block(s) after the head; ` +
        `send -> receipt p50 / p95 ${ms(
          mine.map((row) => row.receiptMs),
          50,
        )} / ${ms(
          mine.map((row) => row.receiptMs),
          95,
        )} ms)`,
    );
    for (const kind of ['deploy', 'plain'] as const) {
      const ratios = of(bundler, kind).map(accuracyOf);
      const ok = ratios.length > 0 && Math.min(...ratios) >= targets.accuracyMin && Math.max(...ratios) <= targets.accuracyMax;
      met &&= ok;
      verdicts.push(
        `${bundler}: accuracy of ${kind} ops in ${targets.accuracyMin.toFixed(2)}-${targets.accuracyMax.toFixed(2)} (every op): ${ok ? 'met' : 'missed'} ` +
          `(min ${fixed(Math.min(...ratios), 3)}, p50 ${fixed(percentile(ratios, 50), 3)}, max ${fixed(Math.max(...ratios), 3)})`,
      );
    }
  }
  const failedOps = samples.filter((sample) => !sample.success).length;
  if (failedOps > 0) {
    met = false;
    verdicts.push(`${failedOps} op(s) were included with success false`);
  }
  return {
    text: [latency, '', inclusion, '', timing, '', ...breakdowns.flatMap((table) => [table, '']), accuracy].join('\n'),
    met,
    verdicts,
  };
}
