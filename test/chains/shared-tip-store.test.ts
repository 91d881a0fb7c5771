import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockNumberAtLeast, createClusterTip } from '../../src/chains/cluster-tip.ts';
import { createRedisSharedTipStore } from '../../src/chains/redis-shared-tip-store.ts';
import { createServedTip } from '../../src/chains/served-tip.ts';
import { createMemorySharedTipStore, type SharedTipStore } from '../../src/chains/shared-tip-store.ts';
import { type RunningRedis, startRedis } from '../support/redis.ts';
import { redisServer, skipWithout } from '../support/requirements.ts';

describe('blockNumberAtLeast', () => {
  it('raises a lower eth_blockNumber answer and leaves the rest as they are', () => {
    expect(blockNumberAtLeast('{"jsonrpc":"2.0","id":7,"result":"0x10"}', 18)).toBe('{"jsonrpc":"2.0","id":7,"result":"0x12"}');
    expect(blockNumberAtLeast('{"jsonrpc":"2.0","id":7,"result":"0x13"}', 18)).toBe('{"jsonrpc":"2.0","id":7,"result":"0x13"}');
    const error = '{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"upstream unavailable"}}';
    expect(blockNumberAtLeast(error, 18)).toBe(error);
  });
});

describe('createClusterTip', () => {
  it('without a store: the local tip, at once (no promise)', () => {
    const local = createServedTip();
    local.advance(5);
    const tip = createClusterTip(local, undefined, 'ethereum/devnet');
    expect(tip.shared).toBe(false);
    expect(tip.agreed()).toBe(5);
  });

  it('with a store: publishes a higher local tip and answers the highest of all', async () => {
    const store = createMemorySharedTipStore();
    const [mine, theirs] = [createServedTip(), createServedTip()];
    const a = createClusterTip(mine, store, 'ethereum/devnet');
    const b = createClusterTip(theirs, store, 'ethereum/devnet');
    expect(await a.agreed()).toBe(-1);
    mine.advance(10);
    theirs.advance(8);
    expect(await a.agreed()).toBe(10);
    expect(await b.agreed()).toBe(10);
    theirs.advance(12);
    expect(await b.agreed()).toBe(12);
    expect(await a.agreed()).toBe(12);
    expect(await createClusterTip(createServedTip(), store, 'base/mainnet').agreed()).toBe(-1);
  });
});

describe('the Redis shared tip store', () => {
  skipWithout(redisServer);
  let redis: RunningRedis;
  const stores: SharedTipStore[] = [];
  beforeAll(async () => {
    if (redisServer.missing) return;
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await redis?.stop();
  });
  const open = (url: string) => {
    const store = createRedisSharedTipStore(url);
    stores.push(store);
    return store;
  };
  /** Until its connection is up a store answers the offered block (no offline queue): wait, bounded. */
  const connected = async (store: SharedTipStore) => {
    const deadline = Date.now() + 5_000;
    for (;;) {
      await store.raise('probe', 1);
      if ((await store.raise('probe', 0)) === 1) return;
      if (Date.now() > deadline) throw new Error('the store did not reach Redis within 5 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('raises atomically: concurrent raises from two processes end at the highest, each answer at least its own', async () => {
    const [one, two] = [open(redis.url), open(redis.url)];
    await Promise.all([connected(one), connected(two)]);
    const offers = Array.from({ length: 200 }, (_, i) => i);
    const answers = await Promise.all(offers.map((block) => (block % 2 === 0 ? one : two).raise('ethereum/devnet', block)));
    for (const [i, answer] of answers.entries()) expect(answer).toBeGreaterThanOrEqual(offers[i]!);
    expect(await one.raise('ethereum/devnet', 0)).toBe(199);
    expect(await two.raise('base/mainnet', 3)).toBe(3);
  });

  it('a Redis that cannot be reached answers the offered block, never an error, within the command timeout', async () => {
    const store = open('redis://127.0.0.1:1');
    const started = Date.now();
    expect(await store.raise('ethereum/devnet', 42)).toBe(42);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
