import { afterEach, describe, expect, it } from 'vitest';
import { readNeedOf } from '../../src/chains/read-need.ts';
import { call, createPoolFixture, resultOf } from './pool-setup.ts';

const fixture = createPoolFixture();
afterEach(() => fixture.cleanUp());

describe('a hedged read', () => {
  it('waits for the node that has the block when the hedge’s lagging node answers null first', async () => {
    // A fresh pool each round: its first read hedges after 10 ms (the head polls' latencies are all it knows).
    for (let round = 0; round < 3; round++) {
      const honest = await fixture.blockNode(16, 150);
      const lagging = await fixture.blockNode(14, 0);
      // One call per request: these nodes answer single calls only (no batches).
      const pool = fixture.pool([], {
        upstreams: [honest.url, lagging.url].map((url) => ({ url, timeoutMs: 2_000, batchMaxSize: 1 })),
        hedge: { minSamples: 0, floorMs: 10 },
        chainId: 31337,
      });
      await pool.identified();
      await pool.heads.pollNow();
      expect(pool.tip.value).toBe(16);
      const params = ['0x10', false];
      const answer = await pool.send(call('eth_getBlockByNumber', params, round), readNeedOf('eth_getBlockByNumber', params));
      expect(resultOf(answer)).toEqual({ number: '0x10' });
      expect(lagging.count('eth_getBlockByNumber'), 'the hedge reached the lagging node first').toBe(1);
    }
  });
});
