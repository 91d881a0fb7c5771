import { afterEach, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { createFilterTags } from '../../src/chains/filter-ids.ts';
import { readNeedOf } from '../../src/chains/read-need.ts';
import type { UpstreamPool } from '../../src/chains/upstream-pool.ts';
import { call, createPoolFixture, direct, resultOf } from './pool-setup.ts';

const fixture = createPoolFixture();
afterEach(() => fixture.cleanUp(), 30_000);

/** One call through the pool, routed as the proxy routes it (by its read need). */
const send = (pool: UpstreamPool, method: string, params: unknown[] = [], id = 1) =>
  pool
    .send(call(method, params, id), readNeedOf(method, params))
    .then((text) => JSON.parse(text) as { result?: unknown; error?: { message: string } });

/** The node a pool's filter id names (as any process with the same upstream list reads it), and the node's own id. */
function nodeOf(anvils: readonly Devnet[], id: string): { anvil: Devnet; id: string } {
  const decoded = createFilterTags(anvils, (anvil) => anvil.url).decode(id);
  if (decoded === undefined) throw new Error(`filter id ${id} names no upstream`);
  return { anvil: decoded.upstream, id: decoded.id };
}

describe('filters on a network of several upstreams', () => {
  it('a filter is used on the node that created it, however the reads around it are routed, until it is uninstalled', async () => {
    const anvils = await fixture.anvils(2);
    const pool = fixture.pool(anvils.map((anvil) => anvil.url));
    // Reads made at the same time as the polls, so the latency and load ranking keeps changing.
    let loading = true;
    const load = Promise.all(
      Array.from({ length: 6 }, async (_, lane) => {
        for (let n = 0; loading; n++) {
          await send(pool, 'eth_getBalance', [
            `0x${lane.toString(16).padStart(2, '0')}${n.toString(16).padStart(38, '0')}`,
            'latest',
          ]);
        }
      }),
    );
    try {
      const blocks = (await send(pool, 'eth_newBlockFilter')).result as string;
      const logs = (await send(pool, 'eth_newFilter', [{ fromBlock: 'latest' }])).result as string;
      // Each lives on one node only, the one its id names; the other node does not know it.
      for (const id of [blocks, logs]) {
        const { anvil, id: nodeId } = nodeOf(anvils, id);
        const known = await Promise.all(
          anvils.map(async (node) => !('error' in JSON.parse(await direct(node.url, call('eth_getFilterChanges', [nodeId]))))),
        );
        expect(known).toEqual(anvils.map((node) => node === anvil));
      }
      const home = nodeOf(anvils, blocks).anvil;

      const answers: string[] = [];
      for (let poll = 0; poll < 30; poll++) {
        for (const id of [blocks, logs]) {
          const answer = await send(pool, 'eth_getFilterChanges', [id], poll);
          answers.push(answer.error ? `error: ${answer.error.message}` : 'ok');
        }
        if (poll % 10 === 0) await direct(home.url, call('evm_mine'));
      }
      expect(answers.filter((answer) => answer !== 'ok')).toEqual([]);
      expect(Array.isArray((await send(pool, 'eth_getFilterLogs', [logs])).result)).toBe(true);

      expect((await send(pool, 'eth_uninstallFilter', [blocks])).result).toBe(true);
      expect((await send(pool, 'eth_getFilterChanges', [blocks])).error?.message).toMatch(/filter not found/i);
    } finally {
      loading = false;
      await load;
    }
  });

  it('the block filter sees the blocks its node mines, in order', async () => {
    const anvils = await fixture.anvils(2);
    const pool = fixture.pool(anvils.map((anvil) => anvil.url));
    const id = (await send(pool, 'eth_newBlockFilter')).result as string;
    const home = nodeOf(anvils, id).anvil;
    const mined: string[] = [];
    for (let n = 0; n < 3; n++) {
      await direct(home.url, call('evm_mine'));
      mined.push((resultOf(await direct(home.url, call('eth_getBlockByNumber', ['latest', false]))) as { hash: string }).hash);
    }
    expect((await send(pool, 'eth_getFilterChanges', [id])).result).toEqual(mined);
  });

  it('a filter created through one API node is used through another with the same upstreams, with no state shared', async () => {
    const anvils = await fixture.anvils(2);
    const urls = anvils.map((anvil) => anvil.url);
    const [first, second] = [fixture.pool(urls), fixture.pool([...urls].reverse())];
    const id = (await send(first!, 'eth_newBlockFilter')).result as string;
    const home = nodeOf(anvils, id).anvil;
    for (let n = 0; n < 5; n++) {
      await direct(home.url, call('evm_mine'));
      const answer = await send(second!, 'eth_getFilterChanges', [id], n);
      expect(answer.error).toBeUndefined();
      expect(answer.result).toHaveLength(1);
    }
    expect((await send(second!, 'eth_uninstallFilter', [id])).result).toBe(true);
    expect((await send(first!, 'eth_getFilterChanges', [id])).error?.message).toMatch(/filter not found/i);
  });

  it('a pool of one upstream gives the node its own filter ids back unchanged', async () => {
    const [anvil] = await fixture.anvils(1);
    const pool = fixture.pool([anvil!.url]);
    const id = (await send(pool, 'eth_newBlockFilter')).result as string;
    expect(JSON.parse(await direct(anvil!.url, call('eth_getFilterChanges', [id]))).error).toBeUndefined();
  });
});
