import type { LatencyRecorder } from './percentiles.ts';
import { fixed, formatTable } from './table.ts';

export interface ShapeRun {
  shape: string;
  blockTimeMs: number;
  /** Baseline: one block with its receipts from the same node (median ms). */
  oneBlockMs: number;
  /** Baseline: the backfill's blocks fetched raw, as the indexer batches them. */
  rawBlocksPerSecond: number;
  headOnly: LatencyRecorder;
  duringBackfill: LatencyRecorder;
  /** Monotonic µs around the backfill, for the CPU profile. */
  backfillWindow: { fromUs: number; toUs: number };
  backfill: {
    blocks: number;
    transfers: number;
    seconds: number;
    blocksPerSecond: number;
    transfersPerSecond: number;
    /** CPU ms per 1,000 transfers over the backfill (the head's work included); the embedded Postgres only. */
    serviceCpuMsPerThousand: number;
    postgresCpuMsPerThousand: number;
  };
}

/** Two tables: head lag (against the block time and one raw block fetch), then backfill speed (against the raw fetch). */
export function formatRealChainReport(runs: readonly ShapeRun[]): string {
  const lagRows = runs.flatMap((run) =>
    (
      [
        ['head only', run.headOnly],
        ['during backfill', run.duringBackfill],
      ] as const
    ).map(([phase, lag]) => [
      `${run.shape}, ${phase}`,
      fixed(run.blockTimeMs / 1000, 0),
      String(lag.count),
      fixed(lag.percentile(50), 0),
      fixed(lag.percentile(95), 0),
      fixed(lag.percentile(100), 0),
      fixed(lag.percentile(95) / run.blockTimeMs, 3),
      fixed(run.oneBlockMs, 1),
      fixed(lag.percentile(95) / run.oneBlockMs, 1),
    ]),
  );
  const backfillRows = runs.map((run) => [
    run.shape,
    String(run.backfill.blocks),
    String(run.backfill.transfers),
    fixed(run.backfill.seconds, 1),
    fixed(run.backfill.blocksPerSecond, 1),
    fixed(run.backfill.transfersPerSecond, 0),
    fixed(run.rawBlocksPerSecond, 1),
    fixed(run.backfill.blocksPerSecond / run.rawBlocksPerSecond, 2),
    fixed(run.backfill.serviceCpuMsPerThousand, 1),
    run.backfill.postgresCpuMsPerThousand > 0 ? fixed(run.backfill.postgresCpuMsPerThousand, 1) : 'n/a',
  ]);
  return [
    formatTable(
      ['head lag', 'block s', 'blocks', 'p50 ms', 'p95 ms', 'max ms', 'p95 / block time', 'raw block ms', 'p95 / raw'],
      lagRows,
    ),
    '',
    formatTable(
      [
        'backfill',
        'blocks',
        'transfers',
        'seconds',
        'blocks/s',
        'transfers/s',
        'raw fetch blocks/s',
        'indexed / raw',
        'service CPU ms / 1k',
        'postgres CPU ms / 1k',
      ],
      backfillRows,
    ),
  ].join('\n');
}
