import { Gauge, type Registry } from 'prom-client';

/** A scrape waits this long for the database at most; then the last values are reported. */
const readDeadlineMs = 1_000;

export interface GaugeReading<L extends string> {
  readonly labels: Record<L, string>;
  readonly value: number;
}

/**
 * A gauge read from the database when Prometheus scrapes it (one cheap query, not a write on every
 * change). A database that does not answer within a second leaves the last values: /metrics must
 * answer while the database is down, that is when it is read. Registered once per registry.
 */
export function registerDatabaseGauge<L extends string>(options: {
  registry: Registry;
  name: string;
  help: string;
  labelNames: readonly L[];
  read: () => Promise<readonly GaugeReading<L>[]>;
}): void {
  if (options.registry.getSingleMetric(options.name)) return;
  let last: readonly GaugeReading<L>[] = [];
  new Gauge<L>({
    name: options.name,
    help: options.help,
    labelNames: options.labelNames,
    registers: [options.registry],
    async collect() {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<undefined>((resolve) => {
        timer = setTimeout(resolve, readDeadlineMs, undefined);
      });
      const read = options.read().catch(() => undefined);
      const fresh = await Promise.race([read, late]).finally(() => clearTimeout(timer));
      if (fresh) last = fresh;
      this.reset();
      for (const reading of last) this.set(reading.labels as never, reading.value);
    },
  });
}
