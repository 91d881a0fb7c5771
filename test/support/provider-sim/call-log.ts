/** What the simulator received and served, over HTTP and WebSocket; a batch element counts as one call. */
export interface CallLog {
  received(methods: string[]): void;
  served(count: number): void;
  refused(count: number): void;
  /** Calls received, of one method or of all. */
  count(method?: string): number;
  refusedCount(): number;
  /** Calls received in the last second, as a provider reports its "current rate". */
  receivedInLastSecond(): number;
  /** performance.now() of every call received / served, in order (the same arrays across `clear()`). */
  readonly receivedTimes: readonly number[];
  readonly servedTimes: readonly number[];
  /** performance.now() of every call the rate limiter refused. */
  readonly refusedTimes: readonly number[];
  clear(): void;
}

export function createCallLog(now: () => number = () => performance.now()): CallLog {
  const receivedTimes: number[] = [];
  const servedTimes: number[] = [];
  const refusedTimes: number[] = [];
  const byMethod = new Map<string, number>();
  let refused = 0;
  return {
    received(methods) {
      const at = now();
      for (const method of methods) {
        receivedTimes.push(at);
        byMethod.set(method, (byMethod.get(method) ?? 0) + 1);
      }
    },
    served(count) {
      const at = now();
      for (let i = 0; i < count; i++) servedTimes.push(at);
    },
    refused(count) {
      const at = now();
      for (let i = 0; i < count; i++) refusedTimes.push(at);
      refused += count;
    },
    count: (method) => (method === undefined ? receivedTimes.length : (byMethod.get(method) ?? 0)),
    refusedCount: () => refused,
    receivedInLastSecond() {
      const since = now() - 1000;
      let count = 0;
      for (let i = receivedTimes.length - 1; i >= 0 && receivedTimes[i]! > since; i--) count++;
      return count;
    },
    receivedTimes,
    servedTimes,
    refusedTimes,
    clear() {
      receivedTimes.length = 0;
      servedTimes.length = 0;
      refusedTimes.length = 0;
      byMethod.clear();
      refused = 0;
    },
  };
}
