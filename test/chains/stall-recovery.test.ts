import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/cli.ts';
import { freeze } from '../support/freeze.ts';
import { call, createPoolFixture, resultOf } from './pool-setup.ts';

const fixture = createPoolFixture();
afterEach(() => fixture.cleanUp(), 30_000);

/** The breaker's default cooldown (src/chains/circuit-breaker.ts): what recovery used to wait for. */
const cooldownMs = 5_000;

describe('a node taken for stalled that answers after all', () => {
  it('serves again as soon as it answers what it held, its identity checked at once (no head poll due for a minute)', async () => {
    const [anvil] = await fixture.anvils(1);
    const pool = fixture.pool([anvil!.url], { headPollMs: 60_000, breaker: { failureThreshold: 1 } });
    expect(resultOf(await pool.send(call('eth_chainId')))).toBe('0x7a69');

    freeze(anvil!.pid);
    await expect(pool.send(call('eth_blockNumber'))).rejects.toMatchObject({ reason: 'timeout' });
    expect(pool.stats()[0]!.breaker).toBe('open');

    process.kill(anvil!.pid, 'SIGCONT');
    const continuedAt = performance.now();
    // Without the late answer closing the breaker, every call fails for the whole cooldown; without the
    // identity check it triggers, for a minute (until the next head poll).
    await eventually(
      async () => {
        try {
          return resultOf(await pool.send(call('eth_chainId')));
        } catch {
          return undefined;
        }
      },
      { timeoutMs: cooldownMs - 1_000, intervalMs: 50, what: 'an answer through the pool after SIGCONT' },
    );
    console.log(`SIGCONT -> served again: ${Math.round(performance.now() - continuedAt)} ms`);
    expect(pool.stats()[0]!.breaker).toBe('closed');
  });
});
