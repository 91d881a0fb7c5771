import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeze } from '../support/freeze.ts';
import { type OutageService, type OwnAnvil, startOutageService, startOwnAnvil } from './outage-service.ts';
import { probeThroughout, recoveredWithin } from './probes.ts';
import { watchProcessHealth } from './process-health.ts';

/** Issue 20: the network's only upstream node (anvil) stopped, then started again on the same port. */
describe('outage: the upstream node stopped and started again', () => {
  let anvil: OwnAnvil;
  let s: OutageService;
  const health = watchProcessHealth();

  beforeAll(async () => {
    anvil = await startOwnAnvil();
    s = await startOutageService({ anvil });
    await s.assertPipelineWorks(15_000);
  }, 90_000);
  afterAll(async () => {
    await s?.close();
    await anvil?.close();
    health.stop();
  }, 60_000);

  it('answers within 2 s while it is down (the JSON-RPC error -32603, or 503), and works again within 10 s of its return', async () => {
    await anvil.stop();
    const during = await probeThroughout(s.target, 4_000);
    expect(during.some((result) => result.body?.error?.code === -32603 || result.status === 503)).toBe(true);
    await anvil.start();
    const back = Date.now();
    await recoveredWithin(s.target, 10_000);
    await s.assertPipelineWorks(10_000 - (Date.now() - back));
    expect(health.problems()).toEqual([]);
  }, 60_000);

  it('answers within 2 s while it is stopped (SIGSTOP: calls hang), and works again once it continues', async () => {
    freeze(anvil.devnet.pid);
    try {
      const during = await probeThroughout(s.target, 4_000);
      expect(during.some((result) => result.body?.error?.code === -32603 || result.status === 503)).toBe(true);
    } finally {
      process.kill(anvil.devnet.pid, 'SIGCONT');
    }
    const back = Date.now();
    await recoveredWithin(s.target, 10_000);
    await s.assertPipelineWorks(10_000 - (Date.now() - back));
    expect(health.problems()).toEqual([]);
  }, 60_000);
});
