import { Gauge, type Registry } from 'prom-client';
import type { HealthCheck } from './health-check.ts';

const probeIntervalMs = 2_000;

/**
 * `blockyard_dependency_up{dependency}`: 1 while this node reaches its database (and Redis, when one is
 * configured), 0 while it cannot, from the readiness check itself (a `select 1` of at most 1.5 s, a
 * Redis PING) run every 2 s. Not at scrape time: a scrape must answer at once even while the database
 * does not (it would otherwise time out and read as the node being down). Returns the stop function.
 */
export function startDependencyGauge(registry: Registry, health: HealthCheck, dependencies: readonly string[]): () => void {
  const gauge = new Gauge({
    name: 'blockyard_dependency_up',
    help: 'Whether this node reaches the dependency (database, redis): 1 yes, 0 no; checked every 2 s',
    labelNames: ['dependency'],
    registers: [registry],
  });
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const probe = async () => {
    const { checks } = await health.check().catch(() => ({ checks: {} as Record<string, string> }));
    if (stopped) return;
    for (const dependency of dependencies) gauge.set({ dependency }, checks[dependency] === 'ok' ? 1 : 0);
    timer = setTimeout(probe, probeIntervalMs).unref();
  };
  // The first round after one interval: a node that has just started has not connected to Redis yet.
  timer = setTimeout(probe, probeIntervalMs).unref();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
