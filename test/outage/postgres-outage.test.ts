import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeze } from '../support/freeze.ts';
import { metricSum } from '../support/metric-sum.ts';
import {
  type OutageService,
  type OwnAnvil,
  type OwnPostgres,
  startOutageService,
  startOwnAnvil,
  startOwnPostgres,
} from './outage-service.ts';
import { probeAll, probeThroughout, recoveredWithin } from './probes.ts';
import { watchProcessHealth } from './process-health.ts';

/** Issue 20: the database killed, then started again on the same port, under a running service. */
describe('outage: Postgres killed and started again', () => {
  let anvil: OwnAnvil;
  let postgres: OwnPostgres;
  let s: OutageService;
  const health = watchProcessHealth();
  let listening: string[] = [];
  /** The LISTEN sessions are back (a single process gets its own events without them: checked apart). */
  const listenersBack = async (withinMs: number) => {
    const deadline = Date.now() + withinMs;
    while ((await postgres.listeners().catch(() => [])).join() !== listening.join()) {
      if (Date.now() > deadline) throw new Error(`LISTEN sessions not back within ${withinMs} ms: ${await postgres.listeners()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  beforeAll(async () => {
    [anvil, postgres] = await Promise.all([startOwnAnvil(), startOwnPostgres()]);
    s = await startOutageService({ anvil, postgres });
    await s.assertPipelineWorks(15_000);
    // Chain events, webhook deliveries' wake-ups and key changes: each session connects on its own
    // after the start, so the three are awaited (bounded), not read once.
    const deadline = Date.now() + 10_000;
    do {
      listening = await postgres.listeners();
      if (listening.length >= 3) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } while (Date.now() < deadline);
    expect(listening).toHaveLength(3);
    expect(listening).toContain('LISTEN blockyard_api_key_changed');
  }, 90_000);
  afterAll(async () => {
    await s?.close();
    await Promise.all([anvil?.close(), postgres?.stop()]);
    health.stop();
  }, 60_000);

  it('counts each pooled session the server ends, however short the break (the 2 s probe may fall beside it)', async () => {
    const counted = () => metricSum(s.service.url, 'blockyard_dependency_connections_lost_total', { dependency: 'database' });
    const exported = await (await fetch(`${s.service.url}/metrics`)).text();
    // At 0 before any loss: Prometheus's increase() needs that sample to see the first one.
    expect(exported).toContain('blockyard_dependency_connections_lost_total{dependency="database"} 0');
    const ended = await postgres.endIdleSessions();
    expect(ended).toBeGreaterThan(0);
    const deadline = Date.now() + 5_000;
    while ((await counted()) === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    // Once per session (each errors twice: the FATAL message, then the closed socket); the pool's only,
    // not the LISTEN sessions the test left alone.
    const lost = await counted();
    expect(lost).toBeGreaterThan(0);
    expect(lost).toBeLessThanOrEqual(ended);
    await s.assertPipelineWorks(10_000);
  }, 30_000);

  it('answers within 2 s while it is down (503 with Retry-After), and works again within 10 s of its return', async () => {
    postgres.kill();
    const during = await probeThroughout(s.target, 4_000);
    expect(during.some((result) => result.status === 503)).toBe(true);
    await postgres.start();
    const back = Date.now();
    await recoveredWithin(s.target, 10_000);
    await s.assertPipelineWorks(10_000 - (Date.now() - back));
    await listenersBack(10_000 - (Date.now() - back));
    expect(health.problems()).toEqual([]);
  }, 60_000);

  it('answers within 2 s while it is stopped (SIGSTOP: connections hang), and works again once it continues', async () => {
    // Sessions already open keep working while only the postmaster is stopped: with enough of them idle
    // in the pool, a busy machine answered every probe from those and never met the hang. Ended first,
    // the pool's next queries need new connections, which hang.
    await postgres.endIdleSessions();
    freeze(postgres.server.pid);
    try {
      const during = await probeThroughout(s.target, 4_000);
      expect(during.some((result) => result.status === 503)).toBe(true);
    } finally {
      process.kill(postgres.server.pid, 'SIGCONT');
    }
    const tookMs = await recoveredWithin(s.target, 10_000);
    await s.assertPipelineWorks(10_000 - tookMs);
    expect((await probeAll(s.target)).every((result) => result.status === 200)).toBe(true);
    expect(health.problems()).toEqual([]);
  }, 60_000);

  it('a data query past the account cap while the server is frozen is 503 (the database), not 429 (its concurrency)', async () => {
    const balances = (holder: string) =>
      fetch(`${s.target.url}/v1/tokens/ethereum/balances/${holder}?network=devnet`, {
        headers: { 'x-api-key': s.target.key },
        signal: AbortSignal.timeout(5_000),
      });
    const holders = Array.from({ length: 5 }, (_, index) => `0x${(0xcab0 + index).toString(16).padStart(40, '0')}`);
    postgres.signalAll('SIGSTOP');
    let held: Promise<Response>[] = [];
    try {
      // The account's 4 slots (limits.data_queries_per_account), each held by a query the server never answers.
      held = holders.slice(0, 4).map(balances);
      // Past the stall guard's suspicion (a query waiting 600 ms: it probes), before its verdict (~1.6 s),
      // which fails the held queries and frees their slots (later, the query is refused as the server is down).
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const over = await balances(holders[4]!);
      expect(over.status).toBe(503);
      expect(over.headers.get('retry-after')).toBe('1');
      expect(((await over.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
      expect((await Promise.all(held)).map((answer) => answer.status)).toEqual([503, 503, 503, 503]);
    } finally {
      postgres.signalAll('SIGCONT');
      await Promise.allSettled(held);
    }
    await recoveredWithin(s.target, 10_000);
  }, 60_000);

  it('answers within 2 s while the whole server is frozen (its sessions too), and works again once it continues', async () => {
    postgres.signalAll('SIGSTOP');
    try {
      const during = await probeThroughout(s.target, 4_000);
      expect(during.some((result) => result.status === 503)).toBe(true);
    } finally {
      postgres.signalAll('SIGCONT');
    }
    const back = Date.now();
    await recoveredWithin(s.target, 10_000);
    await s.assertPipelineWorks(10_000 - (Date.now() - back));
    expect(health.problems()).toEqual([]);
  }, 60_000);
});
