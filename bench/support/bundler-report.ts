// The bundler benchmark's report: markdown tables of latency, inclusion and gas accuracy per bundler,
// EntryPoint version (v0.7, v0.8) and kind of op, and whether Blockyard met each target
// (bench/support/bundler-verdicts.ts).
import type { GasSplit } from './bundler-gas-split.ts';
import { type OpKind, type OpSample, type OpVersion, opVersions } from './bundler-ops.ts';
import type { SendReplay } from './bundler-send-replay.ts';
import { accuracyOf, bundlerVerdicts, percentile, subject, subjectRulesOff } from './bundler-verdicts.ts';
import { fixed } from './table.ts';
import { markdownTable } from './webhook-report.ts';

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
  const of = (bundler: string, version?: OpVersion, kind?: OpKind) =>
    samples.filter(
      (sample) =>
        sample.bundler === bundler &&
        (version === undefined || sample.version === version) &&
        (kind === undefined || sample.kind === kind),
    );
  const groups: { bundler: string; version: OpVersion; kind?: OpKind; label: string }[] = bundlers.flatMap((bundler) =>
    opVersions.flatMap((version) => [
      { bundler, version, kind: 'deploy' as const, label: `${bundler}, v${version} deploy ops` },
      { bundler, version, kind: 'plain' as const, label: `${bundler}, v${version} plain ops` },
      { bundler, version, label: `${bundler}, all v${version} ops` },
    ]),
  );
  const ms = (values: number[], p: number) => fixed(percentile(values, p), 1);

  const latency = markdownTable(
    ['latency (ms)', 'ops', 'estimate p50', 'estimate p95', 'send p50', 'send p95', 'send -> receipt p50', 'send -> receipt p95'],
    groups.map(({ bundler, version, kind, label }) => {
      const rows = of(bundler, version, kind);
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
    groups.map(({ bundler, version, kind, label }) => {
      const rows = of(bundler, version, kind);
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
      .map(({ bundler, version, kind, label }) => {
        const rows = of(bundler, version, kind);
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
    bundlers
      .flatMap((bundler) => opVersions.map((version) => ({ bundler, version })))
      .map(({ bundler, version }) => {
        const rows = of(bundler, version);
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
          `${bundler}, all v${version} ops`,
          String(rows.length),
          ms(diagnostics.floor.get(bundler) ?? [], 50),
          made.length > 0 ? fixed(Math.min(...made), 0) : '-',
          missed.length > 0 ? fixed(Math.max(...missed), 0) : '-',
          ms(afterBlock, 50),
          ms(afterBlock, 95),
        ];
      }),
  );

  const kinds = opVersions.flatMap((version) => (['deploy', 'plain'] as const).map((kind) => ({ version, kind })));
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
      [
        `${bundler} send and bundling (ms)`,
        ...kinds.flatMap(({ version, kind }) => [`v${version} ${kind} p50`, `v${version} ${kind} p95`]),
      ],
      [
        ...breakdownRows.map(([name, pick]) => [
          name,
          ...kinds.flatMap(({ version, kind }) => {
            const values = of(bundler, version, kind).flatMap((row) => {
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
          ...kinds.flatMap(({ version, kind }) => {
            const values = of(bundler, version, kind).flatMap((row) => {
              const replay = diagnostics.replays.get(row.bundleTx);
              return replay ? [pick(replay)] : [];
            });
            return [fixed(percentile(values, 50), 0), fixed(percentile(values, 95), 0)];
          }),
        ]),
      ],
    );
  const breakdowns = [subject, subjectRulesOff].filter((bundler) => bundlers.includes(bundler)).map(breakdownOf);

  const { met, verdicts } = bundlerVerdicts(samples, bundlers);
  return {
    text: [latency, '', inclusion, '', timing, '', ...breakdowns.flatMap((table) => [table, '']), accuracy].join('\n'),
    met,
    verdicts,
  };
}
