import { describe, expect, it } from 'vitest';
import { createSenderTurns } from '../../src/bundler/sender-turns.ts';

describe('sender turns: concurrent sends of one sender key taken in nonce order', () => {
  it('a send waits for the sends of lower nonces already under way (a higher one that came first is left to the gap check)', async () => {
    const turns = createSenderTurns();
    const order: bigint[] = [];
    const run = async (nonce: bigint, workMs: number) => {
      const turn = turns.enter('k', nonce);
      await turn.earlierDone();
      await new Promise((resolve) => setTimeout(resolve, workMs));
      order.push(nonce);
      turn.leave();
    };
    // 0 is the slowest to work; 1 and 2 arrive while it is under way.
    await Promise.all([run(0n, 40), run(1n, 1), run(3n, 1).then(() => run(2n, 1))]);
    expect(order.indexOf(0n)).toBeLessThan(order.indexOf(1n));
    expect(order.indexOf(0n)).toBeLessThan(order.indexOf(2n));
    expect(order.indexOf(0n)).toBeLessThan(order.indexOf(3n));
  });

  it('another key, or an estimate with nothing lower under way, does not wait', async () => {
    const turns = createSenderTurns();
    const held = turns.enter('k', 0n);
    const started = Date.now();
    await turns.enter('other', 5n).earlierDone();
    await turns.lowerDone('k', 0n);
    expect(Date.now() - started).toBeLessThan(50);
    held.leave();
  });

  it('a gap is waited on while a lower send is under way, and given up after the grace otherwise', async () => {
    const turns = createSenderTurns();
    let filled = false;
    const lower = turns.enter('k', 0n);
    setTimeout(() => {
      filled = true;
      lower.leave();
    }, 300);
    // The grace (100 ms) is shorter than the lower send: the wait lasts as long as that send does.
    expect(await turns.waitForGap('k', 1n, async () => filled, 100)).toBe(true);

    const started = Date.now();
    expect(await turns.waitForGap('k', 3n, async () => false, 150)).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });
});
