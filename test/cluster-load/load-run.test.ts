import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import type { Devnet } from '../../src/chains/devnet.ts';
import type { ChainTransfer } from '../cluster/load/chain-scanner.ts';
import type { ClusterTargets, HarnessMessage, LoadMessage } from '../cluster/load/contract.ts';
import { checkDeliveries, countOutOfOrder, undeliveredTransfers } from '../cluster/load/deliveries.ts';
import { type LoadRun, startLoad } from '../cluster/load/load-run.ts';
import type { Reception, WebhookInbox } from '../cluster/load/receivers.ts';
import { checkLimit, checkOps } from '../cluster/load/verdict.ts';
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
      ask({ type: 'phase', name: 'ipc' }); // while setup runs: it waits for it
      await reply('started', 30_000);
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

/** The observers' judgement on made-up evidence: each invariant's break is caught, and only the break. */
describe('cluster load observers (judging recorded evidence)', () => {
  const reception = (eventId: string, block: number, at: number, answered = 204): Reception => ({
    eventId,
    logKey: `0x${block.toString(16)}:0`,
    block,
    logIndex: 0,
    removed: false,
    test: false,
    at,
    answered,
  });
  const transfer = (block: number): ChainTransfer => ({ txHash: `0x${block.toString(16)}`, logIndex: 0, block, seenAt: 0 });
  const inbox = (index: number, receptions: Reception[]): WebhookInbox => ({
    index,
    path: `/hooks/${index}`,
    secret: 'whsec_x',
    failFirstAttempts: 0,
    receptions,
    badSignatures: 0,
  });

  it('counts first attempts out of chain order, not retries nor a swap among sends in flight together', () => {
    expect(countOutOfOrder([reception('a', 1, 0), reception('b', 2, 10), reception('c', 3, 20)])).toBe(0);
    expect(countOutOfOrder([reception('b', 2, 0), reception('a', 1, 300)])).toBe(0);
    expect(countOutOfOrder([reception('b', 2, 0), reception('a', 1, 2_000)])).toBe(1);
    expect(countOutOfOrder([reception('a', 1, 0, 503), reception('b', 2, 10), reception('a', 1, 5_000)])).toBe(0);
  });

  it('finds missing and foreign deliveries per webhook, and allows duplicates', () => {
    const chainTransfers = [transfer(1), transfer(2)];
    const complete = inbox(0, [reception('a', 1, 0), reception('b', 2, 10), reception('b', 2, 20)]);
    const retried = inbox(1, [reception('c', 1, 0, 503), reception('c', 1, 1_000), reception('d', 2, 1_100)]);
    const short = inbox(2, [reception('e', 1, 0), reception('f', 9, 10)]);
    const { totals, violations } = checkDeliveries(chainTransfers, [complete, retried, short]);
    expect(totals).toEqual({ expected: 6, sent: 8, unique: 6, duplicates: 1, missing: 1, outOfOrder: 0 });
    expect(violations).toEqual(['webhook 3: 1 transfers missing', 'webhook 3: 1 deliveries of transfers not on chain']);
    expect(undeliveredTransfers(chainTransfers, [complete, retried, short], 0)).toBe(1);
    // A first attempt refused on purpose is owed again only once the retry had its time.
    const refusedOnly = inbox(3, [reception('g', 1, 1_000, 503), reception('h', 2, 1_000)]);
    const owedAt = (now: number) =>
      undeliveredTransfers(chainTransfers, [complete, refusedOnly], 0, { now, refusedAllowanceMs: 12_000 });
    expect([owedAt(5_000), owedAt(13_000)]).toEqual([0, 1]);
    expect(undeliveredTransfers(chainTransfers, [complete, refusedOnly], 0, { now: 5_000 })).toBe(1);
    expect(checkDeliveries([], [complete]).violations).toContain(
      'deliveries: no matching transfer was mined (the load sent none?)',
    );
  });

  it('catches an op landed twice or never, and a window over the limit', () => {
    const [one, two, three] = ['0x01', '0x02', '0x03'] as const;
    const sent = { accepted: new Set([one, two]), attempted: new Set([one, two, three]), refused: () => 0 };
    const ops = checkOps(
      sent,
      new Map([
        [one, 1],
        [three, 2],
      ]),
      0,
      3,
    );
    expect(ops.totals).toEqual({ accepted: 2, landed: 1, twice: 1, revertedBundles: 0, refused: 0 });
    expect(ops.violations).toEqual([`op ${three} landed 2 times`, `op ${two} was accepted and never landed`]);
    const clean = { accepted: new Set([one]), attempted: new Set([one]), refused: () => 0 };
    expect(checkOps(clean, new Map([[one, 1]]), 0, 1).violations).toEqual([]);
    expect(checkOps(clean, new Map([[one, 1]]), 2, 1).violations).toEqual(['2 handleOps transactions reverted on chain']);
    const limit = checkLimit(
      new Map([
        [101, 10],
        [102, 11],
      ]),
      10,
      new Map(),
      0,
    );
    expect(limit.totals).toEqual({ limit: 10, maxAcceptedInAWindow: 11, windows: 2 });
    expect(limit.violations).toEqual(['window 101: 11 accepted > 10']);
  });
});
