import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUpstreamPool, type UpstreamPool } from '../../src/chains/upstream-pool.ts';
import { type SlowNode, startSlowNode } from '../support/slow-node.ts';
import { call } from './pool-setup.ts';

const slowAnswerMs = 1_500;

/**
 * The stall probe asks a node that is slow with one call whether it is alive at all. Batched with other
 * quick calls, its answer waits for the slowest of them, and a live node looked stopped: every call
 * waiting on it failed as a timeout (seen in CI: a 1.5 s eth_gasPrice answered -32603 "timeout").
 */
describe('the stall probe goes to the node alone', () => {
  let node: SlowNode;
  let pool: UpstreamPool;

  beforeAll(async () => {
    node = await startSlowNode(slowAnswerMs);
    pool = createUpstreamPool({
      upstreams: [{ url: node.url, timeoutMs: 10_000, maxConcurrency: 2_000 }],
      chain: 'ethereum',
      network: 'devnet',
      chainId: 31337,
      headPollMs: 60_000,
    });
    await pool.identified();
    // Reads wait for the first head (a 1.5 s poll here).
    const deadline = performance.now() + 10_000;
    while (pool.tip.value < 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  });

  afterAll(async () => {
    await pool?.close();
    node?.server.closeAllConnections();
    await new Promise((resolve) => node?.server.close(resolve));
  });

  it('a slow call is not cut while other quick calls are batched every loop turn', async () => {
    // The identity check asked eth_chainId with the same id at start.
    Object.assign(node.probes, { alone: 0, batched: 0 });
    const slow = pool.send(call('eth_gasPrice', [], 7));
    // From shortly before the probe is due (300 ms), quick calls in every event-loop turn until the probe
    // reached the node: one lands in the probe's batch if it can.
    const others: Promise<unknown>[] = [];
    await new Promise((resolve) => setTimeout(resolve, 250));
    const startedAt = performance.now();
    await new Promise<void>((resolve) => {
      const tick = () => {
        const seen = node.probes.alone + node.probes.batched > 0;
        if (seen || performance.now() - startedAt > 3_000) return resolve();
        others.push(
          pool.send(call('eth_getBalance', ['0x0000000000000000000000000000000000000001', 'latest'], 8)).catch(() => undefined),
        );
        setImmediate(tick);
      };
      setImmediate(tick);
    });
    expect(node.probes).toEqual({ alone: 1, batched: 0 });
    expect(JSON.parse(await slow)).toEqual({ jsonrpc: '2.0', id: 7, result: '0x2a' });
    await Promise.all(others);
  }, 20_000);
});
