import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import type { Devnet } from '../../src/chains/devnet.ts';
import type { ClusterTargets, HarnessMessage, LoadMessage } from '../cluster/load/contract.ts';
import { type LoadRun, startLoad } from '../cluster/load/load-run.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { type RunningRedis, startRedis } from '../support/redis.ts';
import { redisServer, skipWithout } from '../support/requirements.ts';
import { startTestService, type TestService } from '../support/service.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The cluster run's load and observers against one deployment on 127.0.0.1: a process with every role
 * and a second API process, one Redis (the limiter both share), anvil making a block a second. The
 * verdict of a clean run holds no violation; a webhook paused mid-run is caught as missing deliveries.
 */
describe('cluster load and observers (smoke)', () => {
  skipWithout(redisServer);
  let anvil: Devnet;
  let database: TestDatabase;
  let redis: RunningRedis;
  let main: TestService;
  let secondApi: TestService;
  let targets: ClusterTargets;
  const runs: LoadRun[] = [];

  beforeAll(async () => {
    if (redisServer.missing) return;
    [anvil, database, redis] = await Promise.all([startTestAnvil({ blockTimeS: 1 }), createTestDatabase(), startRedis()]);
    const chains = [
      {
        chain: 'ethereum',
        network: 'devnet',
        chain_id: 31337,
        testnet: true,
        dev_methods: true,
        block_time_s: 1,
        finality_depth: 2,
        upstreams: [{ url: anvil.url, ws_url: anvil.url.replace('http://', 'ws://') }],
        indexer: { enabled: true },
        bundler: { enabled: true },
      },
    ];
    const settings = {
      encryption_key: randomBytes(32).toString('hex'),
      bundler_keys: devnetExecutorKeys[0],
      webhooks: { retry_schedule_s: [0.5, 1, 1, 2, 2, 5, 5, 5] },
    };
    const sharing = { anvil, database };
    main = await startTestService({ sharing, chains, settings, redisUrl: redis.url });
    secondApi = await startTestService({ sharing, chains, settings, redisUrl: redis.url, roles: 'api' });
    targets = {
      lbUrl: main.url,
      apiUrls: [main.url, secondApi.url],
      chainRpcUrl: anvil.url,
      chain: 'ethereum',
      network: 'devnet',
      adminToken: main.adminToken,
      bindHost: '127.0.0.1',
    };
  });

  afterAll(async () => {
    for (const run of runs) await run.stop().catch(() => undefined);
    await secondApi?.stop();
    await main?.stop();
    await Promise.all([anvil?.stop(), database?.close(), redis?.stop()]);
  });

  it('judges a clean run clean: every transfer delivered to every webhook, ops landed once, the limit held', async () => {
    const run = await startLoad(targets, { ops: { count: 8, senders: 4, spreadMs: 8_000 }, wsSubscribers: 2 });
    runs.push(run);
    run.phase('first');
    await sleep(7_000);
    run.phase('second');
    await sleep(7_000);
    const drained = await run.drain(30_000);
    const verdict = run.verdict();
    expect(verdict.violations).toEqual([]);
    expect(drained).toMatchObject({ converged: true, health: { undelivered: 0, opsPending: 0 } });
    expect(verdict.phases.map((phase) => phase.name)).toEqual(['start', 'first', 'second']);
    expect(verdict.phases[1]!.answered['200']).toBeGreaterThan(50);
    const upgrades = verdict.phases.reduce((sum, phase) => sum + (phase.answered['101'] ?? 0), 0);
    expect(upgrades).toBe(2); // each subscriber's, none dropped
    expect(verdict.deliveries.expected).toBeGreaterThanOrEqual(5 * 10);
    expect(verdict.deliveries).toMatchObject({ missing: 0, outOfOrder: 0, unique: verdict.deliveries.expected });
    expect(verdict.ops.accepted).toBeGreaterThan(0);
    expect(verdict.ops).toMatchObject({ landed: verdict.ops.accepted, twice: 0 });
    expect(verdict.limit.windows).toBeGreaterThan(3);
    expect(verdict.limit.maxAcceptedInAWindow).toBe(10); // 40 at once: the limit was reached, not passed
    expect(verdict.ws.headsReceived).toBeGreaterThan(10);
    await run.stop();
  }, 90_000);

  it('reports a webhook that stops receiving as missing deliveries', async () => {
    const run = await startLoad(targets, { ops: { count: 0 }, wsSubscribers: 1, failFirstAttempts: [0, 0, 0] });
    runs.push(run);
    await sleep(2_000);
    const paused = await main.admin('PATCH', `/admin/webhooks/${run.setup.webhookIds[1]}`, { status: 'paused' });
    expect(paused.status).toBe(200);
    await sleep(4_000);
    const drained = await run.drain(4_000);
    const verdict = run.verdict();
    expect(drained.converged).toBe(false);
    expect(drained.health.undelivered).toBeGreaterThan(0);
    expect(verdict.deliveries.missing).toBeGreaterThan(0);
    expect(verdict.violations).toEqual([`webhook 2: ${verdict.deliveries.missing} transfers missing`]);
    await run.stop();
  }, 60_000);

  it('runs as the harness drives it: main.ts over the IPC channel, start to stop', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/cluster/load/main.ts'], {
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let output = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const inbox: LoadMessage[] = [];
    child.on('message', (message: LoadMessage) => inbox.push(message));
    const reply = async <T extends LoadMessage['type']>(type: T, timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = inbox.find((message) => message.type === type || message.type === 'error');
        if (found) {
          inbox.splice(inbox.indexOf(found), 1);
          if (found.type === 'error') throw new Error(`the load failed: ${found.message}`);
          return found as Extract<LoadMessage, { type: T }>;
        }
        if (Date.now() > deadline) throw new Error(`no '${type}' within ${timeoutMs} ms; stderr:\n${output}`);
        await sleep(50);
      }
    };
    const ask = (message: HarnessMessage) => child.send(message);
    try {
      ask({ type: 'start', targets });
      await reply('started', 30_000);
      ask({ type: 'phase', name: 'ipc' });
      await sleep(5_000);
      ask({ type: 'health' });
      const { health } = await reply('health', 5_000);
      expect(health.recentOk).toBe(true);
      ask({ type: 'drain', timeoutMs: 20_000 });
      const { report } = await reply('drained', 25_000);
      expect(report).toMatchObject({ converged: true, health: { undelivered: 0, opsPending: 0 } });
      ask({ type: 'verdict' });
      const { verdict } = await reply('verdict', 5_000);
      expect(verdict.violations).toEqual([]);
      expect(verdict.phases.find((phase) => phase.name === 'ipc')?.answered['200']).toBeGreaterThan(50);
      expect(verdict.deliveries.unique).toBe(verdict.deliveries.expected);
      expect(verdict.deliveries.expected).toBeGreaterThan(0);
      ask({ type: 'stop' });
      await reply('stopped', 15_000);
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});
