// Indexer benchmark: backfill of a devnet holding 100,000+ ERC-20 transfers against fetching the same
// blocks raw, and the balances API for an address holding 100 tokens against one Multicall3 call.
// Run: npm run bench:indexer   (BENCH_INDEXER_TRANSFERS, BENCH_INDEXER_RECIPIENTS, BENCH_INDEXER_PER_TX,
// BENCH_INDEXER_TOKENS, BENCH_DURATION, BENCH_WARMUP, BENCH_DATABASE_URL, BENCH_CPU_PROF=1)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { type Devnet, startDevnet } from '../src/chains/devnet.ts';
import { compileContracts } from '../src/contracts/compile.ts';
import { installMulticall3 } from '../src/contracts/install-multicall3.ts';
import { createBenchKey } from './support/admin.ts';
import { anvilCall } from './support/anvil-rpc.ts';
import { type BlockyardService, databaseLabel, startBlockyardService } from './support/blockyard-service.ts';
import { monotonicUs, watchBackfill } from './support/indexer-backfill.ts';
import { type BalancesRun, measureBalances } from './support/indexer-balances.ts';
import { createThrowawayDatabase, type ThrowawayDatabase } from './support/indexer-database.ts';
import { fetchBlocksRaw } from './support/indexer-raw-fetch.ts';
import { formatIndexerReport } from './support/indexer-report.ts';
import { readIndexerBenchSettings } from './support/indexer-settings.ts';
import { deployHeldTokens, generateTransfers } from './support/indexer-workload.ts';
import { printProfile } from './support/print-profile.ts';
import { readRssMiB, sampleRss } from './support/rss.ts';
import { describeMachine, guardRun } from './support/run-guard.ts';

const network = 'ethereum/devnet';
/** The indexer's own defaults (src/indexer/indexer.ts), so the raw fetch reads the way it does. */
const batchBlocks = 25;
const inFlight = 4;

const settings = readIndexerBenchSettings();
const log = (line: string) => process.stderr.write(`[bench:indexer] ${line}\n`);
/** Under bench/run.ts's 10-minute cap; the backfill gets what the other steps leave. */
const deadlineMs = 570_000;
const startedAt = Date.now();

const workDir = mkdtempSync(join(tmpdir(), 'blockyard-bench-indexer-'));
let devnet: Devnet | undefined;
let blockyard: BlockyardService | undefined;
let database: ThrowawayDatabase | undefined;
const { cleanup, disarm } = guardRun({
  deadlineMs,
  log,
  async stop() {
    await Promise.allSettled([blockyard?.server.stop(), devnet?.stop()]);
    await database?.drop().catch((error: unknown) => log(`could not drop ${database?.url}: ${(error as Error).message}`));
    rmSync(workDir, { recursive: true, force: true });
  },
});

try {
  console.log(describeMachine());
  console.log(
    `settings: ${settings.transfers} ERC-20 transfers between ${settings.recipients} addresses, ${settings.perTransaction} per transaction, ` +
      `automine; raw fetch ${batchBlocks} blocks per batch, ${inFlight} in flight; ${settings.heldTokens} tokens held, ` +
      `1 connection for ${settings.durationS} s after ${settings.warmupS} s warm-up; blockyard on ${databaseLabel(settings.databaseUrl)}`,
  );

  devnet = await startDevnet({ logger: pino({ level: 'silent' }) });
  log(`anvil at ${devnet.url} (automine)`);
  const artifacts = await compileContracts();
  await installMulticall3(devnet.url);
  const workload = await generateTransfers(devnet.url, artifacts, settings);
  log(
    `${workload.transfers} BenchToken transfers in ${workload.transactions} transactions: ${(workload.ms / 1000).toFixed(1)} s`,
  );
  const held = await deployHeldTokens(devnet.url, artifacts, settings.heldTokens);
  log(`${held.tokens.length} tokens deployed and minted to ${held.holder}: ${(held.ms / 1000).toFixed(1)} s`);
  const head = Number(BigInt((await anvilCall(devnet.url, 'eth_blockNumber')) as string));

  // Discarded: the first read of fresh blocks is slower on anvil, and it would fall on whichever row came first.
  await fetchBlocksRaw(devnet.url, { from: 0, to: head, batchBlocks, inFlight, traces: true });
  const raw = await fetchBlocksRaw(devnet.url, { from: 0, to: head, batchBlocks, inFlight, traces: false });
  log(`raw fetch of blocks 0-${head}: ${(raw.ms / 1000).toFixed(2)} s, ${raw.tokenTransfers} transfers`);
  const rawTraced = await fetchBlocksRaw(devnet.url, { from: 0, to: head, batchBlocks, inFlight, traces: true });
  log(`raw fetch with trace_block: ${(rawTraced.ms / 1000).toFixed(2)} s`);
  const expected = workload.transfers + held.tokens.length;
  if (raw.tokenTransfers !== expected) throw new Error(`the chain holds ${raw.tokenTransfers} transfers, expected ${expected}`);
  console.log(
    `devnet: blocks 0-${head}, ${raw.tokenTransfers} ERC-20 transfers; generated in ${(workload.ms / 1000).toFixed(1)} s ` +
      `(${workload.transactions} BenchToken transactions) + ${(held.ms / 1000).toFixed(1)} s (${held.transactions} DemoToken transactions)`,
  );

  if (settings.databaseUrl) database = await createThrowawayDatabase(settings.databaseUrl);
  const spawnedUs = monotonicUs();
  blockyard = await startBlockyardService({
    workDir,
    upstream: { url: devnet.url },
    cpuProfile: settings.cpuProfile,
    ...(database ? { databaseUrl: database.url } : {}),
    // The indexer on, from block 0, as the embedded devnet has it.
    chainSettings: { block_time_s: 1, finality_depth: 2, indexer: { enabled: true, start_block: 0 } },
  });
  const listeningUs = monotonicUs();
  const { server, profileDir } = blockyard;
  log(`blockyard at ${server.url}${profileDir ? ` (profiling into ${profileDir})` : ''}; backfilling`);
  const idleRssMiB = readRssMiB(server.pid);
  const rss = sampleRss(server.pid);
  const progress = await watchBackfill({
    baseUrl: server.url,
    network,
    head,
    timeoutMs: Math.min(300_000, deadlineMs - (Date.now() - startedAt) - 90_000),
    log,
  });
  const maxRssMiB = rss.stop();
  const seconds = (progress.doneUs - listeningUs) / 1e6;
  log(
    `backfill ${progress.caughtUp ? 'done' : 'NOT done'}: block ${progress.indexedBlock} of ${head} after ${seconds.toFixed(1)} s`,
  );

  let balances: BalancesRun | undefined;
  let balancesSkipped: string | undefined;
  if (progress.caughtUp) {
    try {
      balances = await measureBalances({
        blockyardUrl: server.url,
        apiKey: await createBenchKey(server.url, blockyard.adminToken),
        anvilUrl: devnet.url,
        holder: held.holder,
        tokens: held.tokens,
        block: head,
        warmupS: settings.warmupS,
        durationS: settings.durationS,
        log,
      });
    } catch (error) {
      balancesSkipped = (error as Error).message;
      log(`balances rows failed: ${balancesSkipped}`);
    }
  } else {
    balancesSkipped = 'the backfill did not finish';
  }
  await server.stop();

  console.log('');
  console.log(
    formatIndexerReport({
      raw,
      rawTraced,
      backfill: {
        head,
        onChainTransfers: raw.tokenTransfers,
        indexedTransfers: progress.tokenTransfers,
        indexedBlock: progress.indexedBlock,
        caughtUp: progress.caughtUp,
        startupS: (listeningUs - spawnedUs) / 1e6,
        firstBlockS: progress.firstBlockUs === undefined ? Number.NaN : (progress.firstBlockUs - listeningUs) / 1e6,
        firstRoundTransfers: progress.firstRoundTransfers,
        seconds,
        idleRssMiB,
        maxRssMiB,
        slowestPollMs: progress.slowestPollMs,
        failedPolls: progress.failedPolls,
      },
      database: databaseLabel(settings.databaseUrl),
      heldTokens: held.tokens.length,
      ...(balances ? { balances } : {}),
      ...(balancesSkipped ? { balancesSkipped } : {}),
    }),
  );
  if (profileDir) {
    printProfile(profileDir, { fromUs: listeningUs, toUs: progress.doneUs }, log, 'the backfill');
    if (balances?.window) printProfile(profileDir, balances.window, log, 'the balances requests');
  }
} finally {
  await cleanup();
  disarm();
}
