import type { BalancesRun } from './indexer-balances.ts';
import type { SequentialResult } from './indexer-latency.ts';
import type { RawFetchResult } from './indexer-raw-fetch.ts';
import { fixed, formatTable } from './table.ts';

export interface BackfillRun {
  head: number;
  /** ERC-20 transfers on the chain (counted by the raw fetch). */
  onChainTransfers: number;
  /** ERC-20 transfers the service says it indexed. */
  indexedTransfers: number;
  indexedBlock: number;
  caughtUp: boolean;
  /** Spawn to the service's LISTENING line (the indexer starts just before it). */
  startupS: number;
  /** LISTENING to the first poll that saw a block indexed, and the transfers indexed by then. */
  firstBlockS: number;
  firstRoundTransfers: number;
  /** LISTENING to the first poll that saw the head indexed (or to giving up). */
  seconds: number;
  idleRssMiB: number;
  maxRssMiB: number;
  /** The slowest GET /metrics answer during the backfill, and how many failed. */
  slowestPollMs: number;
  failedPolls: number;
}

export interface IndexerRun {
  raw: RawFetchResult;
  rawTraced: RawFetchResult;
  backfill: BackfillRun;
  database: string;
  heldTokens: number;
  balances?: BalancesRun;
  /** Why the balances rows were not measured, when they were not. */
  balancesSkipped?: string;
}

export const targets = { transfersPerSecond: 5_000, balancesP95Ms: 20 } as const;

export function formatIndexerReport(run: IndexerRun): string {
  const { raw, rawTraced, backfill } = run;
  const rawRate = raw.tokenTransfers / (raw.ms / 1000);
  const indexedRate = backfill.indexedTransfers / backfill.seconds;
  const none = ['-', '-', '-'];
  // The first round is the slowest (a cold process, the database's first large transaction): shown apart.
  const afterFirstRound = (backfill.indexedTransfers - backfill.firstRoundTransfers) / (backfill.seconds - backfill.firstBlockS);
  const rows: string[][] = [
    [
      'raw fetch: blocks + receipts (anvil)',
      String(raw.tokenTransfers),
      'transfers',
      fixed(raw.ms / 1000, 2),
      fixed(rawRate, 0),
      '1.00',
      ...none,
      '-',
    ],
    [
      'raw fetch: + trace_block, as the indexer',
      String(rawTraced.tokenTransfers),
      'transfers',
      fixed(rawTraced.ms / 1000, 2),
      fixed(rawTraced.tokenTransfers / (rawTraced.ms / 1000), 0),
      fixed(rawTraced.tokenTransfers / (rawTraced.ms / 1000) / rawRate, 2),
      ...none,
      '-',
    ],
    [
      `blockyard backfill (${run.database})${backfill.caughtUp ? '' : ' [did not catch up]'}`,
      String(backfill.indexedTransfers),
      'transfers',
      fixed(backfill.seconds, 2),
      fixed(indexedRate, 0),
      fixed(indexedRate / rawRate, 2),
      ...none,
      fixed(backfill.maxRssMiB, 0),
    ],
  ];
  const balancesName = `blockyard GET balances, ${run.heldTokens} tokens`;
  const direct = run.balances?.multicall;
  if (direct) rows.push(latencyRow(`multicall3 aggregate3, ${run.heldTokens} balanceOf (anvil)`, direct));
  const measured = run.balances?.blockyard;
  if (measured && direct) rows.push(latencyRow(balancesName, measured, direct));
  else rows.push([`${balancesName}: not available`, '-', '-', '-', '-', '-', ...none, '-']);

  const header = [
    'measurement',
    'count',
    'unit',
    'seconds',
    'per second',
    'x baseline',
    'p50 ms',
    'p95 ms',
    'p99 ms',
    'max RSS MiB',
  ];
  const p95 = measured?.latencies.percentile(95);
  const lines = [
    formatTable(header, rows),
    'x baseline: backfill rows, transfers per second over the raw blocks + receipts fetch; balances row, p95 over the aggregate3 call',
    '',
    `blockyard: listening ${fixed(backfill.startupS, 1)} s after spawn; first block indexed ${fixed(backfill.firstBlockS, 1)} s later; ` +
      `block ${backfill.indexedBlock} of ${backfill.head} indexed ${fixed(backfill.seconds, 1)} s after listening`,
    `after the first round (${backfill.firstRoundTransfers} transfers): ${fixed(afterFirstRound, 0)} transfers/s`,
    `index holds ${backfill.indexedTransfers} of ${backfill.onChainTransfers} ERC-20 transfers on chain` +
      (backfill.indexedTransfers === backfill.onChainTransfers ? '' : ' (MISMATCH)'),
    `GET /metrics every 200 ms during the backfill: slowest answer ${fixed(backfill.slowestPollMs, 0)} ms, ${backfill.failedPolls} failed`,
    `raw fetch: ${fixed(raw.megabytes, 1)} MB of JSON; with trace_block ${fixed(rawTraced.megabytes, 1)} MB`,
    `blockyard RSS: ${fixed(backfill.idleRssMiB, 0)} MiB when listening, ${fixed(backfill.maxRssMiB, 0)} MiB max during the backfill`,
    ...errorLines(run),
    '',
    'targets:',
    `  backfill >= ${targets.transfersPerSecond} transfers/s: ${fixed(indexedRate, 0)}/s ${verdict(backfill.caughtUp && indexedRate >= targets.transfersPerSecond)}`,
    `  balances p95 < ${targets.balancesP95Ms} ms: ${
      p95 === undefined
        ? `not available (${run.balances?.unavailable ?? run.balancesSkipped ?? 'not measured'})`
        : `${fixed(p95, 2)} ms ${verdict(p95 < targets.balancesP95Ms)}`
    }`,
  ];
  return lines.join('\n');
}

function latencyRow(name: string, result: SequentialResult, baseline?: SequentialResult): string[] {
  const p95 = result.latencies.percentile(95);
  return [
    name,
    String(result.requests),
    'requests',
    fixed(result.seconds, 2),
    fixed(result.requests / result.seconds, 0),
    baseline ? fixed(p95 / baseline.latencies.percentile(95), 2) : '1.00',
    fixed(result.latencies.percentile(50), 2),
    fixed(p95, 2),
    fixed(result.latencies.percentile(99), 2),
    '-',
  ];
}

function errorLines(run: IndexerRun): string[] {
  const lines: string[] = [];
  for (const [name, result] of [
    ['aggregate3', run.balances?.multicall],
    ['balances', run.balances?.blockyard],
  ] as const) {
    if (result && (result.non2xx > 0 || result.errors > 0)) {
      lines.push(`WARNING ${name}: ${result.non2xx} non-2xx, ${result.errors} errors (first: ${result.firstError ?? '-'})`);
    }
  }
  return lines;
}

function verdict(met: boolean): string {
  return met ? '(met)' : '(not met)';
}
