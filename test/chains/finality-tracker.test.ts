import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { UpstreamPool } from '../../src/chains/upstream-pool.ts';
import { forwardTo, rpcAnswer, startRpcServer } from '../support/rpc-server.ts';
import { call, createPoolFixture, direct, resultOf } from './pool-setup.ts';

/**
 * How a node in front of anvil answers the tags: as anvil does, refusing them (a chain or client
 * without them), or with an older block than anvil's (a node whose finality lags).
 */
type TagMode = { kind: 'honest' } | { kind: 'refuse' } | { kind: 'behind'; blocks: number };

const fixture = createPoolFixture();
afterEach(() => fixture.cleanUp());

async function setUp(settings: { finality: 'tags' | 'depth'; finalityDepth: number }) {
  const [anvil] = await fixture.anvils(1);
  const mode: { current: TagMode } = { current: { kind: 'honest' } };
  const node = fixture.server(
    await startRpcServer(async (body) => {
      const tag = /"(finalized|safe)"/.exec(body)?.[1];
      if (!tag || mode.current.kind === 'honest') return forwardTo(anvil!.url)(body);
      if (mode.current.kind === 'refuse')
        return { body: rpcAnswer(body, { error: { code: -32602, message: `unknown block tag ${tag}` } }) };
      const honest = resultOf(await direct(anvil!.url, call('eth_getBlockByNumber', [tag, false]))) as { number: string };
      const older = Math.max(0, Number.parseInt(honest.number, 16) - mode.current.blocks);
      return forwardTo(anvil!.url)(body.replace(`"${tag}"`, `"0x${older.toString(16)}"`));
    }),
  );
  // One call per request (no batches), and head polls only when the test asks (pollNow).
  const pool = fixture.pool([], {
    upstreams: [{ url: node.url, timeoutMs: 2_000, batchMaxSize: 1 }],
    headPollMs: 600_000,
    finality: settings,
  });
  await pool.heads.firstPoll;
  const mine = async (blocks: number) => {
    await direct(anvil!.url, call('anvil_mine', [`0x${blocks.toString(16)}`]));
    await pool.heads.pollNow();
  };
  const tagOfAnvil = async (tag: string) =>
    Number.parseInt(
      (resultOf(await direct(anvil!.url, call('eth_getBlockByNumber', [tag, false]))) as { number: string }).number,
      16,
    );
  const tagReads = () => node.seen.filter((seen) => /"(finalized|safe)"/.test(seen.body)).length;
  return { pool, mode, mine, tagOfAnvil, tagReads };
}

/** Until the pool's reported tags are `expected` (the read runs after the head poll that moved the tip), bounded. */
async function reported(pool: UpstreamPool, expected: { finalized?: number; safe?: number }): Promise<void> {
  for (const until = Date.now() + 5_000; JSON.stringify(pool.finality()) !== JSON.stringify(expected); await sleep(10)) {
    if (Date.now() > until)
      throw new Error(`finality ${JSON.stringify(pool.finality())} never became ${JSON.stringify(expected)}`);
  }
}

/** `count()` once it stayed the same for 200 ms (bounded at 5 s). */
async function settledCount(count: () => number): Promise<number> {
  let last = count();
  for (const until = Date.now() + 5_000; Date.now() < until; ) {
    await sleep(200);
    if (count() === last) return last;
    last = count();
  }
  throw new Error('the tag reads never settled');
}

describe('finality read with the head', () => {
  it("reads the node's finalized and safe blocks once per new head, not at every poll", async () => {
    const { pool, mine, tagOfAnvil, tagReads } = await setUp({ finality: 'tags', finalityDepth: 5 });
    await mine(100);
    await reported(pool, { finalized: await tagOfAnvil('finalized'), safe: await tagOfAnvil('safe') });
    expect(pool.finalBlock()).toBe(pool.tip.value - 64);
    expect(pool.finalBlock('safe')).toBe(pool.tip.value - 32);

    // A head that came while a read was under way is read once more after it: let that one end first.
    const reads = await settledCount(tagReads);
    for (let i = 0; i < 3; i++) await pool.heads.pollNow();
    await sleep(100);
    expect(tagReads(), 'no new head, no read').toBe(reads);
    await mine(1);
    await reported(pool, { finalized: await tagOfAnvil('finalized'), safe: await tagOfAnvil('safe') });
    expect(tagReads()).toBe(reads + 2);
  });

  it('never goes back when a node answers an older finalized block', async () => {
    const { pool, mode, mine, tagOfAnvil, tagReads } = await setUp({ finality: 'tags', finalityDepth: 5 });
    await mine(100);
    const before = { finalized: await tagOfAnvil('finalized'), safe: await tagOfAnvil('safe') };
    await reported(pool, before);
    // A read under way would meet the mined block below in honest mode: let the reads end first.
    await settledCount(tagReads);
    mode.current = { kind: 'behind', blocks: 10 };
    await mine(1);
    await sleep(200);
    expect(pool.finality()).toEqual(before);
    mode.current = { kind: 'honest' };
    await mine(1);
    await reported(pool, { finalized: before.finalized + 2, safe: before.safe + 2 });
  });

  it('falls back to finality_depth below the head when the node refuses the tags, and asks it again only later', async () => {
    const { pool, mode, mine, tagReads } = await setUp({ finality: 'tags', finalityDepth: 5 });
    mode.current = { kind: 'refuse' };
    await mine(100);
    await sleep(200);
    expect(pool.finality()).toEqual({});
    expect(pool.finalBlock()).toBe(pool.tip.value - 5);
    expect(pool.finalBlock('safe')).toBe(pool.tip.value - 5);
    const reads = await settledCount(tagReads);
    for (let i = 0; i < 3; i++) await mine(1);
    await sleep(200);
    expect(tagReads(), 'a node without the tags is not asked at every head').toBe(reads);
    expect(pool.finalBlock()).toBe(pool.tip.value - 5);
  });

  it('with finality: depth reads no tags at all', async () => {
    const { pool, mine, tagReads } = await setUp({ finality: 'depth', finalityDepth: 2 });
    await mine(100);
    await sleep(200);
    expect(tagReads()).toBe(0);
    expect(pool.finalBlock()).toBe(pool.tip.value - 2);
  });
});
