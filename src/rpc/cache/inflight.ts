/** Identical calls under way share one promise: the first caller runs the work, later ones join it. */
export interface Inflight<T> {
  /** The promise under way for `key`, if any. */
  get(key: string): Promise<T> | undefined;
  /** Runs `work` as the call for `key` until it settles. */
  run(key: string, work: () => Promise<T>): Promise<T>;
  readonly size: number;
}

export function createInflight<T>(): Inflight<T> {
  const running = new Map<string, Promise<T>>();
  return {
    get: (key) => running.get(key),
    run(key, work) {
      const promise = work().finally(() => {
        if (running.get(key) === promise) running.delete(key);
      });
      running.set(key, promise);
      return promise;
    },
    get size() {
      return running.size;
    },
  };
}
