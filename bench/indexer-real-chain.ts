// The indexer on real-chain-shaped blocks (issue 33): a synthetic node on 127.0.0.1 serves blocks of
// 300 transactions and 1,000 logs (ERC-20, ERC-721 and ERC-1155 transfers, swaps, approvals) every
// 12 s (mainnet-shaped) or 2 s (Base-shaped); Blockyard runs as `npm start` runs it, with that node as
// its only upstream and no start_block, so the index starts at the head. Measured: head lag (the time
// from a block becoming the head to the index holding it) with the head alone and during a backfill,
// and the backfill's speed. Baselines from the same run: fetching one block from the same node, and
// fetching the backfill's blocks raw (as the indexer batches them) without indexing.
// Run: npm run bench:indexer:real-chain   (BENCH_REAL_CHAIN_SECONDS head-only phase per shape, default 60;
// BENCH_REAL_CHAIN_BACKFILL_BLOCKS, default 300; BENCH_REAL_CHAIN_SHAPES=mainnet,base; BENCH_DATABASE_URL;
// BENCH_CPU_PROF=1 prints the service's top functions during each backfill)
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BlockyardService, databaseLabel, startBlockyardService } from './support/blockyard-service.ts';
import { createThrowawayDatabase, type ThrowawayDatabase } from './support/indexer-database.ts';
import { printProfile } from './support/print-profile.ts';
import { formatRealChainReport, type ShapeRun } from './support/real-chain-report.ts';
import { measureRealChain, type RealChainShape } from './support/real-chain-run.ts';
import { describeMachine, guardRun } from './support/run-guard.ts';

const shapes: RealChainShape[] = [
  { name: 'mainnet-shaped', chain: 'ethereum', network: 'mainnet', chainId: 1, blockTimeMs: 12_000 },
  { name: 'Base-shaped', chain: 'base', network: 'mainnet', chainId: 8453, blockTimeMs: 2_000 },
];
const wanted = (process.env.BENCH_REAL_CHAIN_SHAPES ?? 'mainnet,base').split(',').map((name) => name.trim().toLowerCase());
const headSeconds = Number(process.env.BENCH_REAL_CHAIN_SECONDS ?? 60);
const backfillBlocks = Number(process.env.BENCH_REAL_CHAIN_BACKFILL_BLOCKS ?? 300);
const databaseUrl = process.env.BENCH_DATABASE_URL;
const block = { transactions: 300, logs: 1000 };
const log = (line: string) => process.stderr.write(`[bench:indexer:real-chain] ${line}\n`);

const workDir = mkdtempSync(join(tmpdir(), 'blockyard-bench-real-chain-'));
// As root the embedded Postgres runs as another user, who must pass through to each shape's directory.
chmodSync(workDir, 0o711);
let service: BlockyardService | undefined;
let database: ThrowawayDatabase | undefined;
const { cleanup, disarm } = guardRun({
  deadlineMs: 900_000,
  log,
  async stop() {
    await service?.server.stop();
    await database?.drop().catch(() => undefined);
    rmSync(workDir, { recursive: true, force: true });
  },
});

try {
  console.log(describeMachine());
  console.log(
    `settings: ${block.transactions} transactions and ${block.logs} logs a block; head-only phase ${headSeconds} s; ` +
      `backfill of ${backfillBlocks} blocks below the start; blockyard on ${databaseLabel(databaseUrl)}`,
  );
  const runs: ShapeRun[] = [];
  for (const shape of shapes.filter((s) => wanted.some((name) => s.name.toLowerCase().startsWith(name)))) {
    if (databaseUrl) database = await createThrowawayDatabase(databaseUrl);
    const dir = mkdtempSync(join(workDir, `${shape.chain}-`));
    runs.push(
      await measureRealChain({
        shape,
        block,
        headSeconds,
        backfillBlocks,
        log,
        startService: async (upstreamUrl, chainSettings) => {
          service = await startBlockyardService({
            workDir: dir,
            upstream: { url: upstreamUrl },
            chainSettings,
            cpuProfile: process.env.BENCH_CPU_PROF === '1',
            ...(database ? { databaseUrl: database.url } : {}),
          });
          return service;
        },
        databaseUrl: database?.url,
      }),
    );
    await service?.server.stop();
    if (service?.profileDir) printProfile(service.profileDir, runs.at(-1)!.backfillWindow, log, `the ${shape.name} backfill`);
    service = undefined;
    await database?.drop();
    database = undefined;
  }
  console.log('');
  console.log(formatRealChainReport(runs));
} finally {
  disarm();
  await cleanup();
}
