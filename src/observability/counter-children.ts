import type { Counter } from 'prom-client';

/** One label set's counter, bound once: `inc` only adds to a number. */
export interface CounterChild {
  inc(): void;
}

interface Pending {
  readonly labels: Record<string, string>;
  count: number;
}

/**
 * Cheap children of a prom-client counter: increments add up here and reach the counter when the
 * registry is read (`flush`, from the counter's `collect`), so a scrape always sees every increment.
 * prom-client's own `inc` validates and hashes the labels on every call, even through `labels()`.
 */
export class CounterChildren<L extends string> {
  private counter: Counter<L> | undefined;
  private readonly pending: Pending[] = [];
  private readonly byKey = new Map<string, CounterChild>();

  constructor(private readonly labelNames: readonly L[]) {}

  /** Set once the counter exists (it is built with `collect: () => children.flush()`). */
  attach(counter: Counter<L>): void {
    this.counter = counter;
  }

  /** The child of these label values, in `labelNames` order; keep it rather than asking per call. */
  child(...values: string[]): CounterChild {
    const key = values.join('\u0000');
    let child = this.byKey.get(key);
    if (child === undefined) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, index) => {
        labels[name] = values[index] ?? '';
      });
      const entry: Pending = { labels, count: 0 };
      this.pending.push(entry);
      child = {
        inc() {
          entry.count++;
        },
      };
      this.byKey.set(key, child);
    }
    return child;
  }

  flush(): void {
    if (!this.counter) return;
    for (const entry of this.pending) {
      if (entry.count === 0) continue;
      const count = entry.count;
      entry.count = 0;
      this.counter.inc(entry.labels as Partial<Record<L, string>>, count);
    }
  }
}
