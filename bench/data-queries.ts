// Data queries on a chain-sized index (issue 35 item 1: no tenant can stall the shared database).
// Blockyard as `npm start` runs it (build, log level info, embedded Postgres, embedded devnet with its
// indexer); 3,000,000 ERC-20 transfers in a realistic shape (2,000 tokens and 200,000 addresses, both
// skewed: USDC-like tokens and router addresses with hundreds of thousands of transfers, a long tail
// with a handful) plus NFT, native and internal transfers, holdings and NFT ownership, written straight
// into the index's tables over blocks mined on the devnet (bench/support/data-queries-seed.ts).
// Phase A: every query shape the API accepts (bench/support/data-queries-shapes.ts), round-robin with
// GET /healthz as the baseline; accepted (200 with a result) or refused (400/413/429, JSON-RPC -32602/
// -32600/-32005) and latency per shape, against p95 <= 200 ms. Phase B: tenant A's indexed read (GET
// /v1/transfers of an ordinary address) alone, then while tenant B (another account) runs the slowest
// accepted shapes and a batch of 50 in loops, against p95 <= 1.2x alone, with the cores each process
// used; then A's read while a plain busy loop in another process keeps one core busy, at niceness 0
// and 19: what any core's worth of work does to A on this machine. Verdicts are printed, not
// asserted. Run: npm run bench:data-queries
// (BENCH_DQ_ROWS, default 3000000; BENCH_DQ_BLOCKS, default 5000; BENCH_DQ_SAMPLES rounds of phase A,
// default 100; BENCH_DQ_PHASE_A_S its time budget, default 900; BENCH_DQ_READS reads per phase B
// series, default 300; BENCH_DQ_HOSTILE_CONCURRENCY, default 8; BENCH_DQ_TENANT_B where tenant B's loops run:
// `worker` (a thread of their own, as another client; the default), `thread` (the bench's own thread, where the
// parsing of their answers delays the timing of A's reads), `both` (phase B once each, worker first);
// BENCH_CPU_PROF=1 prints the service's top functions while tenant A reads under load)

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBenchKey } from './support/admin.ts';
import { startBlockyardService } from './support/blockyard-service.ts';
import type { ChildServer } from './support/child-server.ts';
import { getRequest, send } from './support/data-queries-client.ts';
import { prepareDevnet } from './support/data-queries-devnet.ts';
import { type PhaseBResult, runPhaseA, runPhaseB } from './support/data-queries-phases.ts';
import {
  phaseATable,
  phaseAVerdict,
  phaseBTable,
  phaseBVerdict,
  refusalLines,
  slowestAccepted,
} from './support/data-queries-report.ts';
import { describeSeed, seedDataQueries, seedShape } from './support/data-queries-seed.ts';
import { buildShapes, ordinary, probes, reachDeepPages } from './support/data-queries-shapes.ts';
import { refusedPauseMs, type TenantBPlace } from './support/data-queries-tenant-b.ts';
import { printProfile } from './support/print-profile.ts';
import { describeMachine, describeSource, guardRun } from './support/run-guard.ts';
import { wholeNumber } from './support/settings.ts';
import { embeddedDatabaseUrl } from './support/webhook-database.ts';

const rows = wholeNumber(process.env, 'BENCH_DQ_ROWS', 3_000_000, 10_000, 20_000_000);
// 600 ERC-20 transfers a block at 3,000,000 rows, as in a busy mainnet block; anvil mines 20,000
// blocks too slowly (each block slower than the last: 5,000 take about 30 s, the next 1,000 about 15 s).
const blocks = wholeNumber(process.env, 'BENCH_DQ_BLOCKS', 5_000, 100, 100_000);
const rounds = wholeNumber(process.env, 'BENCH_DQ_SAMPLES', 100, 1, 10_000);
const phaseAMs = wholeNumber(process.env, 'BENCH_DQ_PHASE_A_S', 900, 10, 7_200) * 1000;
const reads = wholeNumber(process.env, 'BENCH_DQ_READS', 300, 10, 100_000);
const concurrency = wholeNumber(process.env, 'BENCH_DQ_HOSTILE_CONCURRENCY', 8, 1, 256);
const tenantBPlaces: Record<string, TenantBPlace[]> = {
  worker: ['worker'],
  thread: ['bench thread'],
  both: ['worker', 'bench thread'],
};
const places = tenantBPlaces[process.env.BENCH_DQ_TENANT_B ?? 'worker'];
if (places === undefined)
  throw new Error(`BENCH_DQ_TENANT_B must be worker, thread or both, not ${process.env.BENCH_DQ_TENANT_B}`);
const warmupRounds = 3;
/** Every request's bound: far above any target, below the slowest batch (22 s) it is not. */
const timeoutMs = 30_000;
/** Each phase B series (alone, loaded, after) ends at `reads` reads or this, whichever first. */
const seriesMs = 120_000;
/** Tenant B's mix: the slowest accepted shapes of phase A, and the batch of 50 by contract. */
const hostileShapes = 5;
const deepPage = 20;
const network = 'ethereum/devnet';
const log = (line: string) => process.stderr.write(`[bench:data-queries] ${line}\n`);

const workDir = mkdtempSync(join(tmpdir(), 'blockyard-bench-'));
const children: ChildServer[] = [];
const { cleanup, disarm } = guardRun({
  deadlineMs: 40 * 60_000,
  log,
  async stop() {
    await Promise.allSettled(children.map((child) => child.stop()));
    rmSync(workDir, { recursive: true, force: true });
  },
});

try {
  const runStarted = performance.now();
  const blockyard = await startBlockyardService({ workDir, cpuProfile: process.env.BENCH_CPU_PROF === '1' });
  children.push(blockyard.server);
  const baseUrl = blockyard.server.url;
  if (!blockyard.devnetUrl) throw new Error('the service printed no embedded devnet URL');
  const databaseUrl = embeddedDatabaseUrl(blockyard.logFile);
  const keyA = await createBenchKey(baseUrl, blockyard.adminToken, {}, 'tenant-a');
  const keyB = await createBenchKey(baseUrl, blockyard.adminToken, {}, 'tenant-b');

  const devnet = await prepareDevnet({ devnetUrl: blockyard.devnetUrl, databaseUrl, network, blocks, log });
  log(`seeding ${rows.toLocaleString('en-US')} ERC-20 transfers and the rest over ${blocks} blocks`);
  const seed = await seedDataQueries(databaseUrl, { network, rows, blocks }, log);
  log(`seeded in ${(seed.ms / 1000).toFixed(1)} s`);
  const seedLines = await describeSeed(databaseUrl, network, probes);
  const health = await send(getRequest(`${baseUrl}/healthz`), timeoutMs);
  if (health.outcome !== 'accepted') throw new Error(`GET /healthz answered ${health.label} after the seed`);

  log(`following page keys to page ${deepPage} of two queries`);
  const deep = await reachDeepPages(baseUrl, keyA, deepPage, { timeoutMs, budgetMs: 120_000 });
  const shapes = buildShapes(baseUrl, blocks, deep);
  log(`phase A: ${shapes.length} shapes, ${warmupRounds} warm-up and ${rounds} measured rounds, at most ${phaseAMs / 1000} s`);
  const phaseA = await runPhaseA(shapes, { key: keyA, warmupRounds, rounds, budgetMs: phaseAMs, timeoutMs, log });

  const worst = slowestAccepted(phaseA.results, hostileShapes).map((result) => result.shape);
  const batch = shapes.find((shape) => shape.group === 'batch')!;
  const read = shapes.find((shape) => shape.name === 'GET /v1/transfers ordinary, limit 50')!;
  const phaseBs: { place: TenantBPlace; result: PhaseBResult }[] = [];
  for (const place of places) {
    log(`phase B: ${concurrency} loops of tenant B (${place}) over ${worst.length + 1} shapes`);
    const result = await runPhaseB({
      read: read.request(keyA),
      hostile: [...worst, batch].map((shape) => shape.request(keyB)),
      concurrency,
      tenantB: place,
      samples: reads,
      seriesMs,
      timeoutMs,
      servicePid: blockyard.server.pid,
      log,
    });
    phaseBs.push({ place, result });
  }

  console.log(describeMachine());
  console.log(describeSource(new URL('../', import.meta.url)));
  console.log(
    `settings: blockyard as npm start runs it (build, log level info, embedded Postgres, embedded devnet + indexer); ` +
      `two enterprise accounts (no rate limits), one key each; ${rows.toLocaleString('en-US')} ERC-20 transfers of ` +
      `${seedShape.tokens} tokens (Zipf s=${seedShape.tokenSkew}) between ${seedShape.addresses.toLocaleString('en-US')} ` +
      `addresses (Zipf s=1), ${seedShape.zeroValueShare * 100}% of value 0, NFT/native/internal transfers at ` +
      `${seedShape.nftShare * 100}/${seedShape.nativeShare * 100}/${seedShape.internalShare * 100}% of that over ` +
      `${seedShape.nftContracts} NFT contracts, over ${blocks} indexed blocks; every request bounded at ${timeoutMs / 1000} s`,
  );
  console.log(
    `seed: ${(seed.ms / 1000).toFixed(1)} s; mining ${blocks} blocks ${(devnet.mineMs / 1000).toFixed(1)} s, ` +
      `indexing them ${(devnet.indexMs / 1000).toFixed(1)} s; rows: ` +
      Object.entries(seed.tables)
        .map(([table, n]) => `${table} ${n.toLocaleString('en-US')}`)
        .join(', '),
  );
  for (const line of seedLines) console.log(`  ${line}`);
  for (const note of deep.notes) console.log(`  note: ${note}`);
  console.log('');
  console.log(
    `phase A: every query shape, one request at a time, round-robin; ${phaseA.warmups} warm-up round(s), ` +
      `${phaseA.rounds} measured (asked: ${rounds}, budget ${phaseAMs / 1000} s). Latency columns: of the accepted ` +
      `answers when a row has some, else of every answer. x base p50: over GET /healthz's p50. p95 <= 200 ms?: ` +
      `NO too when an answer failed (a timeout, a 5xx, a JSON-RPC error other than a refusal); n/a when refused or not served.`,
  );
  console.log(phaseATable(phaseA.results));
  const refusals = refusalLines(phaseA.results);
  if (refusals.length > 0) console.log(['', 'what the answers that were not results said:', ...refusals].join('\n'));
  console.log('');
  for (const line of phaseAVerdict(phaseA.results)) console.log(line);
  console.log('');
  console.log(
    `phase B: tenant A reads ${ordinary} (GET /v1/transfers, limit 50, sequential, up to ${reads} reads or ` +
      `${seriesMs / 1000} s per series) alone, then while tenant B runs ${concurrency} loops (each pausing ` +
      `${refusedPauseMs} ms after a refused answer) over: ` +
      [...worst, batch].map((shape) => shape.name).join('; '),
  );
  for (const { place, result } of phaseBs) {
    console.log(phaseBTable(result, concurrency, place));
    for (const line of phaseBVerdict(result)) console.log(line);
  }
  if (blockyard.profileDir) {
    // node writes the profile when the process exits.
    await blockyard.server.stop();
    printProfile(blockyard.profileDir, phaseBs[0]!.result.loadedWindowUs, log, "tenant A's reads under tenant B's loops");
  }
  console.log('');
  console.log(`whole run: ${((performance.now() - runStarted) / 60_000).toFixed(1)} min`);
} finally {
  await cleanup();
  disarm();
}
