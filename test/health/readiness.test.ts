import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { closedPort } from '../support/closed-port.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { type ProviderSim, startProviderSim } from '../support/provider-sim.ts';
import { startTestService, type TestService } from '../support/service.ts';

interface Health {
  status: number;
  body: { status: string; checks: Record<string, string> };
}

/**
 * /healthz reports every network and dependency; only the networks of `readiness.networks` make the
 * node unready: `ethereum/devnet` (the test anvil) and `ethereum/holesky` (the simulator in front of
 * it) are needed, `ethereum/sepolia` (a closed port) is not.
 */
describe('/healthz: each network and dependency, and the networks the node needs', () => {
  let anvil: Devnet;
  let database: TestDatabase;
  let sim: ProviderSim;
  let t: TestService;

  beforeAll(async () => {
    [anvil, database] = await Promise.all([startTestAnvil(), createTestDatabase()]);
    const downPort = await closedPort();
    sim = await startProviderSim({ upstream: anvil.url });
    t = await startTestService({
      sharing: { anvil, database },
      chains: [
        { chain: 'ethereum', network: 'devnet', chain_id: 31337, testnet: true, upstreams: [{ url: anvil.url }] },
        { chain: 'ethereum', network: 'holesky', chain_id: 31337, block_time_s: 1, upstreams: [{ name: 'sim', url: sim.url }] },
        {
          chain: 'ethereum',
          network: 'sepolia',
          chain_id: 31337,
          upstreams: [{ name: 'gone', url: `http://127.0.0.1:${downPort}` }],
        },
      ],
      settings: { readiness: { networks: ['ethereum/devnet', 'ethereum/holesky'] } },
    });
  });
  afterAll(async () => {
    await t?.stop();
    await sim?.close();
    await Promise.all([anvil?.stop(), database?.close()]);
  });

  async function healthz(): Promise<Health> {
    const response = await fetch(`${t.url}/healthz`, { signal: AbortSignal.timeout(5_000) });
    return { status: response.status, body: (await response.json()) as Health['body'] };
  }
  async function eventuallyHealth(match: (health: Health) => boolean, timeoutMs: number): Promise<Health> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const health = await healthz();
      if (match(health)) return health;
      if (Date.now() > deadline) throw new Error(`/healthz never matched within ${timeoutMs} ms: ${JSON.stringify(health)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('is ready while a network it does not need has no upstream answering, and says so for that network', async () => {
    const health = await healthz();
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('ok');
    expect(health.body.checks).toMatchObject({ database: 'ok', 'chain ethereum/devnet': 'ok', 'chain ethereum/holesky': 'ok' });
    expect(health.body.checks['chain ethereum/sepolia']).toMatch(
      /^error: no upstream answers \(gone: (verifying|unreachable) .*\); not in readiness\.networks, so the node stays ready$/,
    );
    expect(health.body.checks.redis).toBeUndefined();
  });

  it('is not ready while a needed network has no upstream answering (a stalled node), and ready again when it answers', async () => {
    sim.set({ stall: true });
    const down = await eventuallyHealth((health) => health.status === 503, 5_000);
    expect(down.body.status).toBe('unavailable');
    expect(down.body.checks['chain ethereum/holesky']).toMatch(/^error: no upstream answers \(sim: unreachable \(timeout\)\)$/);
    expect(down.body.checks['chain ethereum/devnet']).toBe('ok');
    sim.set({ stall: false });
    const up = await eventuallyHealth((health) => health.status === 200, 10_000);
    expect(up.body.checks['chain ethereum/holesky']).toBe('ok');
  }, 20_000);

  it("says every upstream serves another chain when the needed network's node comes back as another chain", async () => {
    sim.set({ stall: true });
    await eventuallyHealth((health) => health.status === 503, 5_000);
    sim.set({ stall: false, chainId: 1 });
    const wrong = await eventuallyHealth(
      (health) => /another chain/.test(health.body.checks['chain ethereum/holesky'] ?? ''),
      10_000,
    );
    expect(wrong.status).toBe(503);
    expect(wrong.body.checks['chain ethereum/holesky']).toBe(
      'error: every upstream serves another chain (sim: wrong_chain (eth_chainId answered 0x1 (1), expected 0x7a69 (31337)))',
    );
    sim.set({ chainId: undefined });
    await eventuallyHealth((health) => health.status === 200, 5_000);
  }, 25_000);

  it('/livez answers 200 throughout, checking nothing', async () => {
    sim.set({ stall: true });
    await eventuallyHealth((health) => health.status === 503, 5_000);
    const live = await fetch(`${t.url}/livez`, { signal: AbortSignal.timeout(5_000) });
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    sim.set({ stall: false });
  }, 10_000);
});
