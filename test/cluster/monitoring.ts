import { join } from 'node:path';
import { dashboardQueries, queriesWithoutSeries } from '../deploy/dashboard-queries.ts';
import { type LivePrometheus, startPrometheus } from '../deploy/live-prometheus.ts';
import type { Cluster } from './cluster.ts';
import { AlertHistory } from './fault-alerts.ts';
import { adminToken, apiPort, type NodeName } from './nodes.ts';
import { writeScaledRules } from './scaled-rules.ts';
import { hosts } from './topology.ts';

/** Prometheus watching the cluster, and the alert timeline it keeps. */
export interface Monitoring {
  readonly prometheus: LivePrometheus;
  readonly alerts: AlertHistory;
  stop(): Promise<void>;
}

const nodeNames: readonly NodeName[] = ['api1', 'api2', 'work1', 'work2'];

/**
 * Debian's Prometheus in the root namespace (it reaches every host over the bridge, as the harness
 * does; no fault cuts that path), scraping every node's /metrics each second as job "blockyard" with
 * `instance` set to the node's name, and evaluating the scaled copy of deploy/prometheus/rules.yml
 * (test/cluster/scaled-rules.ts) each second.
 */
export async function startMonitoring(cluster: Cluster): Promise<Monitoring> {
  const rules = writeScaledRules(cluster.runDir);
  const prometheus = await startPrometheus(
    nodeNames.map((name) => ({ address: `${hosts[name].address}:${apiPort}`, instance: name })),
    adminToken,
    { ruleFiles: [rules], dir: cluster.runDir, logFile: join(cluster.runDir, 'prometheus.log') },
  );
  return { prometheus, alerts: new AlertHistory(prometheus), stop: () => prometheus.stop() };
}

/** Every dashboard panel's query evaluated against the cluster's Prometheus: those without series. */
export async function emptyDashboardPanels(monitoring: Monitoring, timeoutMs: number): Promise<string[]> {
  return queriesWithoutSeries(monitoring.prometheus, dashboardQueries(), timeoutMs);
}
