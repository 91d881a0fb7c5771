import { describe, expect, it } from 'vitest';
import { createWritePipeline } from '../../src/indexer/write-pipeline.ts';

/** A write the test ends by hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

describe('the backfill write pipeline', () => {
  it('keeps at most `depth` writes under way and hands results on in the order the writes started', async () => {
    const results: number[] = [];
    const pipeline = createWritePipeline<number>(2, (result) => results.push(result));
    const writes = [deferred<number>(), deferred<number>(), deferred<number>()];
    let started = 0;
    const start = (index: number) => () => {
      started++;
      return writes[index]!.promise;
    };
    await pipeline.push(start(0));
    await pipeline.push(start(1));
    const third = pipeline.push(start(2));
    await new Promise((resolve) => setImmediate(resolve));
    expect(started, 'the third waits for the first to end').toBe(2);
    writes[1]!.resolve(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started, 'the second ending first frees no place: the oldest is waited for').toBe(2);
    writes[0]!.resolve(0);
    await third;
    expect(started).toBe(3);
    writes[2]!.resolve(2);
    await pipeline.drain();
    expect(results).toEqual([0, 1, 2]);
  });

  it('reports the first failure only after every later write has ended', async () => {
    const pipeline = createWritePipeline<number>(2, () => undefined);
    const first = deferred<number>();
    const second = deferred<number>();
    await pipeline.push(() => first.promise);
    await pipeline.push(() => second.promise);
    let drained: unknown;
    const draining = pipeline.drain().catch((error) => {
      drained = error;
    });
    first.reject(new Error('first failed'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(drained, 'the second is still under way').toBeUndefined();
    second.reject(new Error('second failed because the first did'));
    await draining;
    expect((drained as Error).message).toBe('first failed');
  });
});
