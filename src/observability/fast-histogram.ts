import type { Registry } from 'prom-client';

/** One label set's histogram, bound once: `observe` is a bucket search and three additions. */
export interface HistogramChild {
  observe(value: number): void;
}

interface Series {
  readonly labels: Record<string, string>;
  readonly counts: number[];
  sum: number;
  count: number;
}

/**
 * A Prometheus histogram for hot paths, exported exactly like prom-client's (same names, label order
 * and buckets), registered on a prom-client `Registry` as a metric of its own. prom-client's own
 * `observe` validates and hashes the labels on every call, even through `labels()`; here that happens
 * once per label set.
 */
export class FastHistogram<L extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  private readonly labelNames: readonly L[];
  private readonly buckets: readonly number[];
  private readonly series = new Map<string, Series>();

  constructor(config: {
    name: string;
    help: string;
    labelNames: readonly L[];
    buckets: readonly number[];
    registers: Registry[];
  }) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    this.buckets = [...config.buckets].sort((a, b) => a - b);
    // biome-ignore lint/suspicious/noExplicitAny: the registry takes any object shaped like a metric
    for (const registry of config.registers) registry.registerMetric(this as any);
  }

  /** The child of these label values, in `labelNames` order; keep it rather than asking per call. */
  labels(...values: string[]): HistogramChild {
    const key = values.join('\u0000');
    let series = this.series.get(key);
    if (series === undefined) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, index) => {
        labels[name] = values[index] ?? '';
      });
      series = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, series);
    }
    const bound = series;
    const buckets = this.buckets;
    return {
      observe(value) {
        if (!Number.isFinite(value)) return;
        let index = 0;
        while (index < buckets.length && value > buckets[index]!) index++;
        if (index < buckets.length) bound.counts[index]!++;
        bound.sum += value;
        bound.count++;
      },
    };
  }

  /** For cold paths: labels as an object, looked up on every call. */
  observe(labels: Partial<Record<L, string>>, value: number): void {
    this.labels(...this.labelNames.map((name) => labels[name] ?? '')).observe(value);
  }

  /** What prom-client's registry formats (`getForPromString`): buckets cumulative, then +Inf, sum and count. */
  async getForPromString() {
    const values: {
      labels: Record<string, string | number>;
      sharedLabels: Record<string, string>;
      value: number;
      metricName: string;
      exemplar?: null;
    }[] = [];
    for (const series of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((bound, index) => {
        cumulative += series.counts[index]!;
        values.push({
          labels: { le: bound },
          sharedLabels: series.labels,
          value: cumulative,
          metricName: `${this.name}_bucket`,
          exemplar: null,
        });
      });
      values.push({
        labels: { le: '+Inf' },
        sharedLabels: series.labels,
        value: series.count,
        metricName: `${this.name}_bucket`,
        exemplar: null,
      });
      values.push({ labels: {}, sharedLabels: series.labels, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: series.labels, value: series.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The JSON form (`registry.getMetricsAsJSON`): every value's labels in one object. */
  async get() {
    const data = await this.getForPromString();
    return {
      ...data,
      values: data.values.map(({ labels, sharedLabels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } })),
    };
  }

  reset(): void {
    this.series.clear();
  }
}
