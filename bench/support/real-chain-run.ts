// One shape of the real-chain indexer benchmark: the synthetic node, Blockyard on it, the head-only
// phase, then a backfill below the start with the head still followed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { BlockyardService } from './blockyard-service.ts';
import { monotonicUs } from './indexer-backfill.ts';
import { createLatencyRecorder, type LatencyRecorder } from './percentiles.ts';
import { readTreeCpuMs } from './process-tree-cpu.ts';
import type { ShapeRun } from './real-chain-report.ts';
import type { BlockShape } from './synthetic-blocks.ts';
import { type SyntheticChain, startSyntheticChain } from './synthetic-chain-server.ts';

export interface RealChainShape {
  name: string;
  chain: string;
  network: string;
  chainId: number;
  blockTimeMs: number;
}

const pollMs = 20;
/** As the indexer fetches a backfill (src/indexer/indexer.ts defaults). */
const batchBlocks = 25;
const inFlight = 4;

export async function measureRealChain(options: {
  shape: RealChainShape;
  block: BlockShape;
  headSeconds: number;
  backfillBlocks: number;
  log: (line: string) => void;
  startService: (upstreamUrl: string, chainSettings: Record<string, unknown>) => Promise<BlockyardService>;
  databaseUrl: string | undefined;
}): Promise<ShapeRun> {
  const { shape, log } = options;
  const network = `${shape.chain}/${shape.network}`;
  const chain = await startSyntheticChain({
    chainId: shape.chainId,
    shape: options.block,
    blockTimeMs: shape.blockTimeMs,
    // The backfill fills 1..backfillBlocks; the raw baseline reads the blocks above them (nothing cached for either).
    history: 2 * options.backfillBlocks + 5,
  });
  try {
    const oneBlock = await rawBlockLatency(chain, 20);
    const raw = await rawFetch(chain, options.backfillBlocks + 1, 2 * options.backfillBlocks);
    log(
      `${shape.name}: raw fetch ${raw.blocksPerSecond.toFixed(1)} blocks/s, one block ${oneBlock.percentile(50).toFixed(1)} ms`,
    );
    const service = await options.startService(chain.url, {
      chain: shape.chain,
      network: shape.network,
      chain_id: shape.chainId,
      testnet: false,
      block_time_s: shape.blockTimeMs / 1000,
      // The synthetic node's tags are its head: a depth, as a chain without tags has.
      finality: 'depth',
      indexer: { enabled: true },
    });
    const db = new pg.Client({ connectionString: options.databaseUrl ?? embeddedUrl(service) });
    await db.connect();
    try {
      const origin = await waitForOrigin(db, network);
      log(`${shape.name}: index started at block ${origin}; head only for ${options.headSeconds} s`);
      const headOnly = await followHead(db, chain, network, origin, () => false, options.headSeconds * 1000);
      log(`${shape.name}: backfill of blocks 1-${options.backfillBlocks}`);
      const backfill = await runBackfill(db, chain, service, network, options.backfillBlocks);
      return {
        shape: shape.name,
        blockTimeMs: shape.blockTimeMs,
        oneBlockMs: oneBlock.percentile(50),
        rawBlocksPerSecond: raw.blocksPerSecond,
        headOnly: headOnly.lag,
        duringBackfill: backfill.lag,
        backfill: backfill.result,
        backfillWindow: backfill.window,
      };
    } finally {
      await db.end();
    }
  } finally {
    await chain.close();
  }
}

function embeddedUrl(service: BlockyardService): string {
  const dir = join(service.logFile, '..', 'blockyard', 'postgres');
  const password = readFileSync(join(dir, 'password'), 'utf8').trim();
  const port = readFileSync(join(dir, 'port'), 'utf8').trim();
  return `postgres://blockyard:${encodeURIComponent(password)}@127.0.0.1:${port}/blockyard`;
}

async function waitForOrigin(db: pg.Client, network: string): Promise<number> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { rows } = await db.query<{ first_block: string }>('select first_block from index_origins where network = $1', [
      network,
    ]);
    if (rows[0]) return Number(rows[0].first_block);
    if (Date.now() > deadline) throw new Error(`no index of ${network} started within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Head lag of every block above the start first seen in the index while `until` runs out. */
async function followHead(
  db: pg.Client,
  chain: SyntheticChain,
  network: string,
  origin: number,
  done: () => boolean | Promise<boolean>,
  maxMs: number,
): Promise<{ lag: LatencyRecorder }> {
  const lag = createLatencyRecorder();
  let seen = origin;
  const deadline = performance.now() + maxMs;
  while (performance.now() < deadline && !(await done())) {
    const { rows } = await db.query<{ tip: string | null }>('select max(number) as tip from index_blocks where network = $1', [
      network,
    ]);
    const tip = Number(rows[0]?.tip ?? origin);
    const now = performance.now();
    for (let number = seen + 1; number <= tip; number++) lag.record(now - chain.producedAt(number));
    seen = Math.max(seen, tip);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return { lag };
}

async function runBackfill(db: pg.Client, chain: SyntheticChain, service: BlockyardService, network: string, to: number) {
  const response = await fetch(`${service.server.url}/admin/index/backfills`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ network, from: 1, to }),
  });
  if (response.status !== 201) throw new Error(`backfill refused: ${response.status} ${await response.text()}`);
  const job = (await response.json()) as { id: string };
  const started = performance.now();
  const fromUs = monotonicUs();
  const cpuBefore = readTreeCpuMs(service.server.pid, 'blockyard');
  let finished: { transfers: number; blocks: number } | undefined;
  const isDone = async () => {
    const { rows } = await db.query<{ status: string; transfers: string; next_block: string; from_block: string }>(
      'select status, transfers, next_block, from_block from index_backfills where id = $1',
      [job.id],
    );
    const row = rows[0]!;
    if (row.status !== 'done') return false;
    finished = { transfers: Number(row.transfers), blocks: Number(row.next_block) - Number(row.from_block) };
    return true;
  };
  const { lag } = await followHead(db, chain, network, await currentTip(db, network), isDone, 600_000);
  if (!finished) throw new Error('the backfill did not finish within 10 minutes');
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = readTreeCpuMs(service.server.pid, 'blockyard');
  const thousands = finished.transfers / 1000;
  const cpuMsPerThousand = (name: string) => ((cpuAfter.get(name) ?? 0) - (cpuBefore.get(name) ?? 0)) / thousands;
  return {
    lag,
    window: { fromUs, toUs: monotonicUs() },
    result: {
      blocks: finished.blocks,
      transfers: finished.transfers,
      seconds,
      blocksPerSecond: finished.blocks / seconds,
      transfersPerSecond: finished.transfers / seconds,
      serviceCpuMsPerThousand: cpuMsPerThousand('blockyard'),
      postgresCpuMsPerThousand: cpuMsPerThousand('postgres'),
    },
  };
}

async function currentTip(db: pg.Client, network: string): Promise<number> {
  const { rows } = await db.query<{ tip: string }>('select max(number) as tip from index_blocks where network = $1', [network]);
  return Number(rows[0]!.tip);
}

/** How long the node takes to hand over one block with its receipts: the floor of any head lag. */
async function rawBlockLatency(chain: SyntheticChain, samples: number): Promise<LatencyRecorder> {
  const latency = createLatencyRecorder();
  for (let index = 0; index < samples; index++) {
    const number = chain.head() - index;
    const started = performance.now();
    await post(chain.url, bundleBody(number, number));
    latency.record(performance.now() - started);
  }
  return latency;
}

/** The backfill's blocks fetched (and parsed) as the indexer batches them, without indexing. */
async function rawFetch(chain: SyntheticChain, from: number, to: number): Promise<{ blocksPerSecond: number }> {
  const started = performance.now();
  let next = from;
  const worker = async () => {
    while (next <= to) {
      const start = next;
      const end = Math.min(to, start + batchBlocks - 1);
      next = end + 1;
      JSON.parse(await post(chain.url, bundleBody(start, end)));
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return { blocksPerSecond: (to - from + 1) / ((performance.now() - started) / 1000) };
}

function bundleBody(from: number, to: number): string {
  const calls = [];
  for (let number = from; number <= to; number++) {
    calls.push({ jsonrpc: '2.0', id: calls.length, method: 'eth_getBlockByNumber', params: [`0x${number.toString(16)}`, true] });
    calls.push({ jsonrpc: '2.0', id: calls.length, method: 'eth_getBlockReceipts', params: [`0x${number.toString(16)}`] });
  }
  return JSON.stringify(calls);
}

async function post(url: string, body: string): Promise<string> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return response.text();
}
