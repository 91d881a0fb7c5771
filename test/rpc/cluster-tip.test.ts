import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { type ProviderSim, startProviderSim } from '../support/provider-sim.ts';
import { type RunningRedis, startRedis } from '../support/redis.ts';
import { redisServer, skipWithout } from '../support/requirements.ts';
import { startTestService, type TestService } from '../support/service.ts';

const call = (method: string, params: unknown[] = [], id = 1) => ({ jsonrpc: '2.0', id, method, params });
const devnet = (upstream: string) => ({
  chain: 'ethereum',
  network: 'devnet',
  chain_id: 31337,
  testnet: true,
  block_time_s: 0.25,
  upstreams: [{ url: upstream, timeout_ms: 5_000 }],
});

/**
 * Two API processes of one deployment (one database, one Redis), each with its own upstream of the same
 * chain: A's is honest, B's lags 2 blocks. A client whose requests alternate between them must never
 * see eth_blockNumber go back: B answers the highest tip any process served.
 */
describe('the served tip across API processes sharing a Redis', () => {
  skipWithout(redisServer);
  let redis: RunningRedis;
  let anvil: Devnet;
  let database: TestDatabase;
  let sims: ProviderSim[];
  let a: TestService;
  let b: TestService;
  let key: string;

  beforeAll(async () => {
    if (redisServer.missing) return;
    [redis, anvil, database] = await Promise.all([startRedis(), startTestAnvil(), createTestDatabase()]);
    sims = await Promise.all([
      startProviderSim({ upstream: anvil.url }),
      startProviderSim({ upstream: anvil.url, behaviour: { lagBlocks: 2 } }),
    ]);
    const sharing = { anvil, database };
    a = await startTestService({ redisUrl: redis.url, sharing, chains: [devnet(sims[0]!.url)] });
    b = await startTestService({ redisUrl: redis.url, sharing, chains: [devnet(sims[1]!.url)] });
    key = (await a.createKey()).key;
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    await Promise.all((sims ?? []).map((sim) => sim.close()));
    await Promise.all([anvil?.stop(), database?.close(), redis?.stop()]);
  });

  async function result<T>(service: TestService, method: string, params: unknown[] = []): Promise<T> {
    const body = (await (await service.rpc(key, call(method, params))).json()) as { result?: T; error?: { message: string } };
    if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  }

  it('a client alternating between the two never sees eth_blockNumber go back while B’s upstream lags 2 blocks', async () => {
    let done = false;
    const mining = (async () => {
      let blocks = 0;
      while (!done) {
        await fetch(anvil.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(call('evm_mine')),
          signal: AbortSignal.timeout(5_000),
        });
        blocks++;
        await sleep(100);
      }
      return blocks;
    })();
    const problems: string[] = [];
    let last = -1;
    let answeredByBAboveItsUpstream = 0;
    try {
      for (let i = 0; i < 1_000; i++) {
        const service = i % 2 === 0 ? a : b;
        const number = Number(await result<string>(service, 'eth_blockNumber'));
        if (number < last) problems.push(`request ${i} (${service === a ? 'A' : 'B'}): ${number} after ${last}`);
        last = Math.max(last, number);
        if (service === b && i % 50 === 1) {
          // B's own upstream is behind: the tip it answers came from A, through Redis.
          const own = Number(
            await fetch(sims[1]!.url, { method: 'POST', body: JSON.stringify(call('eth_blockNumber')) }).then(
              async (response) => ((await response.json()) as { result: string }).result,
            ),
          );
          if (number > own) answeredByBAboveItsUpstream++;
          // A block read at latest on B is never null, though the shared tip is above B's upstream.
          const latest = await result<{ number: string } | null>(b, 'eth_getBlockByNumber', ['latest', false]);
          if (latest === null) problems.push(`request ${i}: B answered latest with null`);
        }
      }
    } finally {
      done = true;
    }
    const blocks = await mining;
    expect(problems.slice(0, 10)).toEqual([]);
    expect(blocks, 'blocks mined meanwhile').toBeGreaterThan(10);
    expect(answeredByBAboveItsUpstream, 'B answered above its own upstream’s head').toBeGreaterThan(0);
  }, 60_000);
});
