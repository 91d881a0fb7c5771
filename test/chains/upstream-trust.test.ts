import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { readNeedOf } from '../../src/chains/read-need.ts';
import { createUpstreamPool, type UpstreamPool, type UpstreamPoolOptions } from '../../src/chains/upstream-pool.ts';
import type { UpstreamConfig } from '../../src/config/chain-settings.ts';
import { UpstreamError } from '../../src/core/upstream-error.ts';
import { type ProviderSim, startProviderSim } from '../support/provider-sim.ts';
import { call, createPoolFixture, direct, resultOf } from './pool-setup.ts';

const fixture = createPoolFixture();
const sims: ProviderSim[] = [];
const pools: UpstreamPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  await Promise.all(sims.splice(0).map((sim) => sim.close()));
  await fixture.cleanUp();
}, 30_000);

async function sim(anvilUrl: string, behaviour: Parameters<ProviderSim['set']>[0] = {}): Promise<ProviderSim> {
  const started = await startProviderSim({ upstream: anvilUrl, behaviour });
  sims.push(started);
  return started;
}

/** JSON log lines the pool wrote, parsed. */
function captureLogs() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

function pool(upstreams: UpstreamConfig[], options: Partial<UpstreamPoolOptions> = {}): UpstreamPool {
  const created = createUpstreamPool({
    upstreams,
    chain: 'ethereum',
    network: 'devnet',
    chainId: 31337,
    headPollMs: 100,
    hedge: { minSamples: Number.MAX_SAFE_INTEGER },
    ...options,
  });
  pools.push(created);
  return created;
}

const read = (p: UpstreamPool, method: string, params: unknown[] = [], id = 1) =>
  p.send(call(method, params, id), readNeedOf(method, params));

describe('identity: an upstream of another chain is never used', () => {
  it('refuses it with one warn line naming it and the chain ids, and serves from the right one', async () => {
    const [anvil] = await fixture.anvils(1);
    const wrong = await sim(anvil!.url, { chainId: 1 });
    const right = await sim(anvil!.url);
    const { lines, logger } = captureLogs();
    const p = pool(
      [
        { url: wrong.url, name: 'wrong' },
        { url: right.url, name: 'right' },
      ],
      { logger },
    );
    await p.identified();
    wrong.clearCounts();
    for (let i = 0; i < 30; i++)
      expect(resultOf(await read(p, 'eth_getBalance', ['0x0000000000000000000000000000000000000001', 'latest']))).toBe('0x0');
    await p.heads.pollNow();
    expect(wrong.calls() - wrong.calls('eth_chainId')).toBe(0);
    const stats = p.stats().find((s) => s.upstream === 'wrong')!;
    expect(stats.condition.name).toBe('wrong_chain');
    expect(stats.condition.reason).toBe('eth_chainId answered 0x1 (1), expected 0x7a69 (31337)');
    const refusals = lines.filter((line) => line.upstream === 'wrong' && line.to === 'wrong_chain');
    expect(refusals).toHaveLength(1);
    expect(refusals[0]!.level).toBe(40);
    expect(String(refusals[0]!.msg)).toContain('expected 0x7a69');
  });

  it('with no upstream of the right chain the network is down, never served from another chain', async () => {
    const [anvil] = await fixture.anvils(1);
    const wrong = await sim(anvil!.url, { chainId: 8453 });
    const p = pool([{ url: wrong.url }]);
    await p.identified();
    const failure = await read(p, 'eth_blockNumber').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as UpstreamError).reason).toBe('wrong_chain');
    expect(wrong.calls('eth_blockNumber')).toBe(0);
  });
});

const transfer = {
  from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  to: '0x0000000000000000000000000000000000000002',
  value: '0x1',
};

/** The receipt straight from anvil, polled briefly: under load automine may answer the hash first. */
async function minedReceipt(url: string, hash: string): Promise<{ blockNumber: string }> {
  for (let tries = 0; tries < 100; tries++) {
    const receipt = resultOf(await direct(url, call('eth_getTransactionReceipt', [hash]))) as { blockNumber: string } | null;
    if (receipt !== null) return receipt;
    await sleep(10);
  }
  throw new Error('anvil mined no receipt within 1 s');
}

describe('one consistent view across upstreams that lag', () => {
  it('never answers null for a block or receipt another upstream has, and eth_blockNumber never goes back', async () => {
    const [anvil] = await fixture.anvils(1);
    // The lagging node answers faster: without routing by head it would get the reads.
    const lagging = await sim(anvil!.url, { lagBlocks: 2 });
    const honest = await sim(anvil!.url, { latencyMs: 15 });
    const p = pool([{ url: lagging.url }, { url: honest.url }]);
    await p.identified();
    let highest = 0;
    for (let round = 0; round < 15; round++) {
      const hash = resultOf(await direct(anvil!.url, call('eth_sendTransaction', [transfer]))) as string;
      const mined = await minedReceipt(anvil!.url, hash);
      // Poll as a client does until the block of its transaction is served; the tip never goes back meanwhile.
      for (let polls = 0; polls < 50 && highest < Number(mined.blockNumber); polls++) {
        const tip = Number(resultOf(await read(p, 'eth_blockNumber')));
        expect(tip).toBeGreaterThanOrEqual(highest);
        highest = tip;
        if (tip < Number(mined.blockNumber)) await sleep(20);
      }
      expect(highest).toBeGreaterThanOrEqual(Number(mined.blockNumber));
      // Its block was served: its receipt and its block are never null, whichever node is faster.
      expect(resultOf(await read(p, 'eth_getTransactionReceipt', [hash]))).not.toBeNull();
      expect(resultOf(await read(p, 'eth_getBlockByNumber', [mined.blockNumber, false]))).not.toBeNull();
    }
    expect(lagging.calls('eth_getTransactionReceipt') + honest.calls('eth_getTransactionReceipt')).toBeGreaterThanOrEqual(15);
  });

  it('asks again of another node when a load balancer over unsynced nodes answers from the one behind', async () => {
    const [anvil] = await fixture.anvils(1);
    await direct(anvil!.url, call('anvil_mine', ['0x5']));
    const flapping = await sim(anvil!.url, { alternate: { lagBlocks: 3 } });
    const honest = await sim(anvil!.url, { latencyMs: 15 });
    const p = pool([{ url: flapping.url }, { url: honest.url }]);
    await p.identified();
    for (let i = 0; i < 20; i++) {
      await direct(anvil!.url, call('evm_mine'));
      const tip = Number(resultOf(await read(p, 'eth_blockNumber')));
      expect(resultOf(await read(p, 'eth_getBlockByNumber', [`0x${tip.toString(16)}`, false]))).not.toBeNull();
    }
  });
});

describe('budgets and routing', () => {
  it('sends a 429-limited upstream at most its limit + 10% after its first 429, and clients see no error', async () => {
    const [anvil] = await fixture.anvils(1);
    const limited = await sim(anvil!.url, { rateLimit: { rps: 40, style: 'http', retryAfterS: 1 } });
    const other = await sim(anvil!.url, { latencyMs: 3 });
    const p = pool([{ url: limited.url }, { url: other.url }], { headPollMs: 1_000 });
    await p.identified();
    const until = performance.now() + 6_000;
    let errors = 0;
    let answers = 0;
    const client = async (id: number) => {
      while (performance.now() < until) {
        const text = await read(p, 'eth_chainId', [], id).catch(() => '');
        if (resultOf(text) === '0x7a69') answers++;
        else errors++;
        await sleep(20);
      }
    };
    await Promise.all(Array.from({ length: 4 }, (_, id) => client(id)));
    expect(errors).toBe(0);
    expect(answers).toBeGreaterThan(100);
    const firstRefusal = limited.receivedTimes.find((_, index) => limited.servedTimes.length <= index) ?? 0;
    const after = limited.receivedTimes.filter((at) => at > firstRefusal);
    let worst = 0;
    for (const start of after) worst = Math.max(worst, after.filter((at) => at >= start && at < start + 1000).length);
    expect(limited.refused()).toBeGreaterThan(0);
    expect(worst).toBeLessThanOrEqual(44);
  });

  it('answers rate_limited with a Retry-After when every upstream is out of budget', async () => {
    const [anvil] = await fixture.anvils(1);
    const a = await sim(anvil!.url);
    const p = pool([{ url: a.url, rps: 5 }], { headPollMs: 60_000 });
    await p.identified();
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, id) =>
        read(p, 'eth_chainId', [], id).then(
          () => 'ok',
          (error: unknown) => error,
        ),
      ),
    );
    const refused = outcomes.filter((outcome): outcome is UpstreamError => outcome instanceof UpstreamError);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.reason).toBe('rate_limited');
    expect(refused[0]!.retryAfterMs).toBeGreaterThan(0);
    expect(a.calls('eth_chainId') - 1).toBeLessThanOrEqual(5);
  });

  it('uses a fallback only when no primary can serve, and never sends a denied method', async () => {
    const anvils = await fixture.anvils(1);
    const primary = await sim(anvils[0]!.url);
    const fallback = await sim(anvils[0]!.url);
    const p = pool([
      { url: fallback.url, tier: 'fallback' },
      { url: primary.url, methods: { deny: ['trace_*'] } },
    ]);
    await p.identified();
    fallback.clearCounts();
    for (let i = 0; i < 10; i++) await read(p, 'eth_getBalance', ['0x0000000000000000000000000000000000000001', 'latest']);
    expect(fallback.calls('eth_getBalance')).toBe(0);
    expect(primary.calls('eth_getBalance')).toBe(10);
    await read(p, 'trace_block', ['0x0']);
    expect(primary.calls('trace_block')).toBe(0);
    expect(fallback.calls('trace_block')).toBe(1);
    primary.set({ html502: true });
    for (let i = 0; i < 5; i++)
      expect(resultOf(await read(p, 'eth_getBalance', ['0x0000000000000000000000000000000000000001', 'latest']))).toBe('0x0');
    expect(fallback.calls('eth_getBalance')).toBeGreaterThan(0);
  });

  it('sends old-state reads to an archive node, and asks it again when a pruned node says the state is gone', async () => {
    const [anvil] = await fixture.anvils(1);
    await direct(anvil!.url, call('anvil_mine', ['0x190']));
    const pruned = await sim(anvil!.url, { pruneBelowBlocks: 128 });
    const archive = await sim(anvil!.url, { latencyMs: 15 });
    const old = ['0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', '0x10'];
    // Configured as what it is: never asked for old state.
    const configured = pool([{ url: pruned.url, archive: false }, { url: archive.url }]);
    await configured.identified();
    expect(resultOf(await read(configured, 'eth_getBalance', old))).toMatch(/^0x/);
    expect(pruned.calls('eth_getBalance')).toBe(0);
    // Not configured: its "missing trie node" sends the read to the other node.
    const unconfigured = pool([{ url: pruned.url }, { url: archive.url }]);
    await unconfigured.identified();
    for (let i = 0; i < 3; i++) expect(resultOf(await read(unconfigured, 'eth_getBalance', old))).toMatch(/^0x/);
  });
});
