import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import type { Devnet } from '../../src/chains/devnet.ts';
import { type OwnPostgres, startOwnPostgres } from '../outage/outage-service.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { type CliProcess, cliEnv, eventually, spawnCli, stopAllCli } from '../support/cli.ts';
import { adminTokenForTests, devnetChain } from '../support/service.ts';

/** How many times `pattern` occurs in the process's output so far. */
const count = (cli: CliProcess, pattern: RegExp) => cli.stdout().match(new RegExp(pattern.source, 'g'))?.length ?? 0;

/** Resolves with the ms until `pattern` occurs `times` times in the output; rejects after `timeoutMs`. */
async function timeUntil(cli: CliProcess, pattern: RegExp, times: number, timeoutMs: number): Promise<number> {
  const started = performance.now();
  await eventually(async () => (count(cli, pattern) >= times ? true : undefined), {
    timeoutMs,
    intervalMs: 20,
    what: `${pattern} printed ${times} times${'\n'}${cli.stdout().slice(-3000)}`,
  });
  return performance.now() - started;
}

/** The process's /metrics (the URL it printed at start). */
async function scrape(cli: CliProcess): Promise<string> {
  const [, url] = (await cli.waitForOutput(/Blockyard is running at (http:\/\/127\.0\.0\.1:\d+)/, 60_000)) as unknown as [
    string,
    string,
  ];
  const response = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5_000) });
  expect(response.status).toBe(200);
  return response.text();
}

function metricValue(text: string, name: string, labels: Record<string, string>): number | undefined {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

const libfaketime = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
const skewedClock = { LD_PRELOAD: libfaketime, FAKETIME: '+30s', FAKETIME_DONT_FAKE_MONOTONIC: '1' };

const indexerAcquired = /indexer lease acquired/;
const bundlerAcquired = /bundler lease acquired/;

// Two worker processes (indexer and bundler roles) on one Postgres of the test's own, which it freezes.
describe('indexer and bundler leases across processes', () => {
  let postgres: OwnPostgres;
  let anvil: Devnet;
  let dataDir: string;
  let configFile: string;
  const encryptionKey = randomBytes(32).toString('hex');

  beforeAll(async () => {
    [postgres, anvil] = await Promise.all([startOwnPostgres(), startTestAnvil({ blockTimeS: 1 })]);
    dataDir = mkdtempSync(join(tmpdir(), 'blockyard-lease-'));
    configFile = join(dataDir, 'blockyard.yaml');
    writeFileSync(
      configFile,
      stringify({ chains: [devnetChain(anvil.url, { bundler: { enabled: true }, indexer: { enabled: true } })] }),
    );
  }, 60_000);
  afterAll(async () => {
    postgres?.signalAll('SIGCONT');
    await stopAllCli();
    await anvil?.stop();
    await postgres?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  const startWorker = (name: string, extraEnv: Record<string, string> = {}) => {
    const dir = join(dataDir, name);
    return spawnCli(['start', '--roles', 'indexer,bundler'], {
      cwd: dataDir,
      env: cliEnv({
        DATABASE_URL: postgres.url,
        BLOCKYARD_CONFIG: configFile,
        BLOCKYARD_DATA_DIR: dir,
        BLOCKYARD_ADMIN_TOKEN: adminTokenForTests,
        BLOCKYARD_ENCRYPTION_KEY: encryptionKey,
        BLOCKYARD_BUNDLER_KEYS: devnetExecutorKeys[0],
        PORT: '0',
        LOG_LEVEL: 'info',
        ...extraEnv,
      }),
    });
  };

  /** The highest block the (active) indexer has stored. */
  async function indexedHead(): Promise<bigint> {
    const client = new pg.Client({ connectionString: postgres.url, connectionTimeoutMillis: 2_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const { rows } = await client.query<{ n: string | null }>('select max(number)::text as n from index_blocks');
      return BigInt(rows[0]?.n ?? -1);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  async function chainHead(): Promise<bigint> {
    const response = await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
      signal: AbortSignal.timeout(5_000),
    });
    return BigInt(((await response.json()) as { result: string }).result);
  }

  it('the standby takes both leases within 5 s of kill -9 of the holder, and a holder cut off from Postgres stops within 5 s', async () => {
    const first = startWorker('first');
    await first.waitForOutput(indexerAcquired, 60_000);
    await first.waitForOutput(bundlerAcquired, 10_000);
    // The standby's wall clock is 30 s ahead (libfaketime, when installed): leases do not read clocks.
    const second = startWorker('second', existsSync(libfaketime) ? skewedClock : {});
    await second.waitForOutput(/standing by[\s\S]*standing by/, 60_000);
    expect(count(second, indexerAcquired) + count(second, bundlerAcquired)).toBe(0);
    if (existsSync(libfaketime)) {
      // The skew is real: its log lines are stamped 30 s ahead.
      const stamped = Date.parse(
        JSON.parse(
          second
            .stdout()
            .split('\n')
            .find((line) => line.includes('standing by'))!,
        ).time,
      );
      expect(stamped - Date.now()).toBeGreaterThan(25_000);
    }
    // What an operator watches: who holds each lease, the indexer's lag, the mempool.
    const [firstMetrics, secondMetrics] = await Promise.all([scrape(first), scrape(second)]);
    for (const role of ['indexer', 'bundler']) {
      expect(metricValue(firstMetrics, 'blockyard_lease_held', { role, network: 'ethereum/devnet' }), role).toBe(1);
      expect(metricValue(secondMetrics, 'blockyard_lease_held', { role, network: 'ethereum/devnet' }), role).toBe(0);
    }
    expect(firstMetrics).toMatch(/^blockyard_indexer_indexed_block\{/m);
    expect(secondMetrics).not.toMatch(/^blockyard_indexer_indexed_block\{/m);
    expect(firstMetrics).toMatch(/^blockyard_indexer_head_block\{/m);
    expect(firstMetrics).toMatch(/^# TYPE blockyard_bundler_mempool_ops gauge/m);
    // An empty mempool reads 0 for the network it bundles (a series to alert on), not nothing.
    expect(firstMetrics).toMatch(/^blockyard_bundler_mempool_ops\{network="ethereum\/devnet"\} 0$/m);
    expect(firstMetrics).toMatch(/^blockyard_upstream_breaker_state\{/m);

    // Right after the standby was refused: a standby that asks every 5 s would take 5 s.
    first.child.kill('SIGKILL');
    const [indexerTakeover, bundlerTakeover] = await Promise.all([
      timeUntil(second, indexerAcquired, 1, 10_000),
      timeUntil(second, bundlerAcquired, 1, 10_000),
    ]);
    console.log(
      `lease failover after kill -9: indexer ${Math.round(indexerTakeover)} ms, bundler ${Math.round(bundlerTakeover)} ms`,
    );
    expect(indexerTakeover).toBeLessThan(5_000);
    expect(bundlerTakeover).toBeLessThan(5_000);
    await eventually(async () => ((await indexedHead()) >= (await chainHead()) - 1n ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the new holder to index up to the head',
    });

    // A frozen database (nothing refused, nothing answered): the holder stops acting as one.
    postgres.signalAll('SIGSTOP');
    let resumed = false;
    try {
      const [indexerLost, bundlerLost] = await Promise.all([
        timeUntil(second, /indexer lease lost/, 1, 10_000),
        timeUntil(second, /bundler lease lost/, 1, 10_000),
      ]);
      console.log(
        `lease given up with Postgres frozen: indexer ${Math.round(indexerLost)} ms, bundler ${Math.round(bundlerLost)} ms`,
      );
      expect(indexerLost).toBeLessThan(5_000);
      expect(bundlerLost).toBeLessThan(5_000);
      // /metrics answers while the database does not (its database-read gauges wait 1 s at most).
      const scrapeStarted = performance.now();
      const frozen = await scrape(second);
      expect(performance.now() - scrapeStarted).toBeLessThan(2_500);
      expect(metricValue(frozen, 'blockyard_lease_held', { role: 'indexer', network: 'ethereum/devnet' })).toBe(0);
      expect(metricValue(frozen, 'blockyard_indexer_indexed_block', { network: 'ethereum/devnet' })).toBeUndefined();
      postgres.signalAll('SIGCONT');
      resumed = true;
    } finally {
      if (!resumed) postgres.signalAll('SIGCONT');
    }
    // Back: the process takes its leases again and indexing catches up.
    await timeUntil(second, indexerAcquired, 2, 20_000);
    await timeUntil(second, bundlerAcquired, 2, 20_000);
    const head = await chainHead();
    await eventually(async () => ((await indexedHead()) >= head ? true : undefined), {
      timeoutMs: 20_000,
      what: 'indexing to resume after the database came back',
    });
    const after = await scrape(second);
    expect(metricValue(after, 'blockyard_lease_held', { role: 'indexer', network: 'ethereum/devnet' })).toBe(1);
    expect(second.exitInfo).toBeUndefined();
  }, 180_000);
});
