import { describe, expect, it } from 'vitest';
import { mapBounded } from '../../src/core/map-bounded.ts';

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

describe('mapBounded', () => {
  it('answers in the order of the items, starts them in order, and runs at most `limit` at once', async () => {
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const results = await mapBounded([5, 1, 4, 2, 3], 2, async (item) => {
      started.push(item);
      running += 1;
      most = Math.max(most, running);
      for (let i = 0; i < item; i++) await tick();
      running -= 1;
      return item * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30]);
    expect(started).toEqual([5, 1, 4, 2, 3]);
    expect(most).toBe(2);
  });

  it('answers an empty list at once, and rejects with the first failure', async () => {
    expect(await mapBounded([], 4, async () => 1)).toEqual([]);
    await expect(
      mapBounded([1, 2, 3], 2, async (item) => {
        if (item === 2) throw new Error('two failed');
        return item;
      }),
    ).rejects.toThrow('two failed');
  });
});
