import type { Kysely } from 'kysely';
import type { Registry } from 'prom-client';
import type { Tables } from '../db/tables.ts';
import { registerDatabaseGauge } from '../observability/database-gauge.ts';

/** The networks whose bundle loop runs in a process, per metrics registry (one gauge covers them all). */
const servedNetworks = new WeakMap<Registry, Set<string>>();

/**
 * `blockyard_bundler_mempool_ops{network}`: ops waiting for a bundle, read from the database when
 * scraped. A network this process bundles reads 0 when empty, not absent: an alert on it needs a series.
 */
export function registerMempoolGauge(registry: Registry, db: Kysely<Tables>, network: string): void {
  servedNetworks.set(registry, (servedNetworks.get(registry) ?? new Set<string>()).add(network));
  registerDatabaseGauge({
    registry,
    name: 'blockyard_bundler_mempool_ops',
    help: "UserOperations waiting in the bundler's mempool for a bundle, by network (from the database: every bundler process reports the same)",
    labelNames: ['network'],
    // Pending only: the partial index user_operations_queue_idx counts them without reading the table.
    read: async () => {
      const rows = await db
        .selectFrom('user_operations')
        .select(['network', (eb) => eb.fn.countAll<string>().as('ops')])
        .where('status', '=', 'pending')
        .groupBy('network')
        .execute();
      const pending = new Map(rows.map((row) => [row.network, Number(row.ops)]));
      for (const served of servedNetworks.get(registry) ?? []) if (!pending.has(served)) pending.set(served, 0);
      return [...pending].map(([name, ops]) => ({ labels: { network: name }, value: ops }));
    },
  });
}
