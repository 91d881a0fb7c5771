import { Registry } from 'prom-client';
import { createWalletClient, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterEach, describe, expect, it } from 'vitest';
import { createUpstreamMetrics } from '../../src/chains/upstream-metrics.ts';
import type { UpstreamPool } from '../../src/chains/upstream-pool.ts';
import { eventually } from '../support/cli.ts';
import { freeze } from '../support/freeze.ts';
import { forwardTo, startRpcServer } from '../support/rpc-server.ts';
import { call, createPoolFixture, direct, resultOf } from './pool-setup.ts';

// anvil's first default account: a well-known development key, funded on every anvil.
const devAccount = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const fixture = createPoolFixture();

/** The upstream the next read goes to: the lowest latency (all idle). */
function preferredIndex(pool: UpstreamPool): number {
  const stats = pool.stats();
  return stats.indexOf(stats.reduce((best, s) => (s.ewmaMs < best.ewmaMs ? s : best)));
}
afterEach(() => fixture.cleanUp(), 30_000);

describe('upstream pool over real anvils', () => {
  it('keeps answering when an upstream is killed, and opens its breaker', async () => {
    const anvils = await fixture.anvils(3);
    // No head polls after the first: only the calls below can find out that a node died.
    const pool = fixture.pool(
      anvils.map((anvil) => anvil.url),
      { headPollMs: 60_000, breaker: { failureThreshold: 3 } },
    );
    for (let i = 0; i < 10; i++) expect(resultOf(await pool.send(call('eth_chainId')))).toBe('0x7a69');

    const preferred = preferredIndex(pool);
    process.kill(anvils[preferred]!.pid, 'SIGKILL');
    for (let i = 0; i < 20; i++) expect(resultOf(await pool.send(call('eth_chainId', [], i)))).toBe('0x7a69');
    // Seen once in CI (all three closed after the kill, 137 ms): the stats say which upstream the calls went to.
    expect(
      pool.stats().map((s) => s.breaker),
      `killed #${preferred}; ${JSON.stringify(pool.stats().map(({ ewmaMs, samples, errorRate, breaker }) => ({ ewmaMs, samples, errorRate, breaker })))}`,
    ).toEqual(anvils.map((_, index) => (index === preferred ? 'open' : 'closed')));
  });

  it('answers within a bounded time while an upstream is stalled (SIGSTOP), and probes it back after SIGCONT', async () => {
    const anvils = await fixture.anvils(2);
    const registry = new Registry();
    // A timeout far above the bound asserted below: only the hedge can keep the calls that fast.
    const pool = fixture.pool([], {
      upstreams: anvils.map((anvil) => ({ url: anvil.url, timeoutMs: 1_500 })),
      breaker: { failureThreshold: 2, cooldownMs: 200 },
      hedge: { minSamples: 5, floorMs: 10 },
      metrics: createUpstreamMetrics(registry),
    });
    await eventually(async () => (pool.stats().every((s) => s.samples >= 5) ? true : undefined), {
      timeoutMs: 5_000,
      intervalMs: 50,
      what: 'latency samples of both upstreams',
    });

    const stalled = preferredIndex(pool);
    freeze(anvils[stalled]!.pid);
    let slowest = 0;
    for (let i = 0; i < 40; i++) {
      const started = performance.now();
      expect(resultOf(await pool.send(call('eth_chainId', [], i)))).toBe('0x7a69');
      slowest = Math.max(slowest, performance.now() - started);
    }
    expect(slowest).toBeLessThan(1_000);
    const hedges = (await registry.getSingleMetric('blockyard_upstream_hedges_total')!.get()).values[0]!.value;
    expect(hedges).toBeGreaterThanOrEqual(1);
    await eventually(async () => (pool.stats()[stalled]!.breaker === 'open' ? true : undefined), {
      timeoutMs: 10_000,
      intervalMs: 50,
      what: 'the stalled upstream to open its breaker',
    });

    process.kill(anvils[stalled]!.pid, 'SIGCONT');
    await eventually(async () => (pool.stats()[stalled]!.breaker === 'closed' ? true : undefined), {
      timeoutMs: 10_000,
      intervalMs: 50,
      what: 'the continued upstream to close its breaker again',
    });
  });

  it('routes no reads to an upstream lagging behind the best head', async () => {
    const [a, b, behind] = await fixture.anvils(3);
    await Promise.all([a!, b!].map((anvil) => direct(anvil.url, call('anvil_mine', ['0xa']))));
    const counting = fixture.server(await startRpcServer(forwardTo(behind!.url)));
    // The lagging node is listed first: without the lag rule it would win every tie.
    const pool = fixture.pool([counting.url, a!.url, b!.url]);
    await pool.heads.pollNow();
    expect(pool.heads.bestHead).toBe(10);
    expect(pool.stats()[0]).toMatchObject({ head: 0, lag: 10 });

    for (let i = 0; i < 20; i++) {
      const block = resultOf(await pool.send(call('eth_getBlockByNumber', ['latest', false], i))) as { number: string };
      expect(block.number).toBe('0xa');
    }
    expect(counting.count('eth_getBlockByNumber')).toBe(0);
  });

  it('sends eth_sendRawTransaction to every upstream; the same one again answers its hash, another with its nonce gets "nonce too low" unchanged', async () => {
    const anvils = await fixture.anvils(3);
    const pool = fixture.pool(anvils.map((anvil) => anvil.url));
    const wallet = createWalletClient({ account: devAccount, chain: foundry, transport: http(anvils[0]!.url) });
    const request = await wallet.prepareTransactionRequest({ to: devAccount.address, value: parseEther('1') });
    const signed = await wallet.signTransaction(request);
    const body = call('eth_sendRawTransaction', [signed]);

    const hash = resultOf(await pool.broadcast(body));
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    for (const anvil of anvils) {
      // The first answer returns before the slower nodes have taken the transaction.
      await eventually(async () => resultOf(await direct(anvil.url, call('eth_getTransactionByHash', [hash]))) ?? undefined, {
        timeoutMs: 5_000,
        intervalMs: 50,
        what: `the transaction on ${anvil.url}`,
      });
    }

    // A retried send is safe (idempotent-send.ts): every node knows this very transaction.
    expect(resultOf(await pool.broadcast(body))).toBe(hash);
    const other = call('eth_sendRawTransaction', [await wallet.signTransaction({ ...request, value: parseEther('2') })]);
    const refused = await pool.broadcast(other);
    expect(JSON.parse(refused).error.message).toMatch(/nonce too low/i);
    expect(refused).toBe(await direct(anvils[0]!.url, other));
  });

  it('sends quick reads made together as one batch per upstream (batch_max_size), and counts the batch sizes', async () => {
    const [anvil] = await fixture.anvils(1);
    const counter = fixture.server(await startRpcServer(forwardTo(anvil!.url)));
    const registry = new Registry();
    const pool = fixture.pool([], {
      upstreams: [{ url: counter.url, batchMaxSize: 4 }],
      headPollMs: 60_000,
      metrics: createUpstreamMetrics(registry),
    });
    await eventually(async () => (pool.stats()[0]!.head >= 0 ? true : undefined), {
      timeoutMs: 5_000,
      intervalMs: 20,
      what: 'the first head poll',
    });
    const before = counter.seen.length;
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => pool.send(call('eth_chainId', [], i))));
    expect(answers.map((answer) => JSON.parse(answer))).toEqual(
      answers.map((_, id) => ({ jsonrpc: '2.0', id, result: '0x7a69' })),
    );
    expect(counter.seen.length - before).toBe(3);
    const sizes = (await registry.getSingleMetric('blockyard_upstream_batch_size')!.get()).values as {
      metricName?: string;
      value: number;
    }[];
    expect(sizes.find((v) => v.metricName === 'blockyard_upstream_batch_size_count')?.value).toBe(3);
    expect(sizes.find((v) => v.metricName === 'blockyard_upstream_batch_size_sum')?.value).toBe(10);
  });
});
