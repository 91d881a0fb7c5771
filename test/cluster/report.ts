import { failoverLimitS, recoveryLimitS } from './convergence.ts';
import type { FaultAlertResult } from './fault-alerts.ts';
import type { PhaseStats, Verdict } from './load/contract.ts';

/** What one fault measured. */
export interface FaultResult {
  readonly name: string;
  readonly recoverS: number | undefined;
  readonly failoverS: number | undefined;
  readonly lastState: string;
  /** Set when the fault itself could not be applied. */
  readonly error?: string;
  /** Its alert (deploy/prometheus/rules.yml, scaled) as the run's Prometheus saw it. */
  readonly alert?: FaultAlertResult;
}

/** The rolling upgrade's step (test/cluster/rolling-upgrade.ts): not one request of the load may fail in it. */
export const rollingUpgradeName = 'rolling upgrade';

const seconds = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(1));

/** The fault's phase and its recovery phase, added up. */
function statsOf(
  verdict: Verdict | undefined,
  name: string,
): { answered: Record<string, number>; noAnswer: number; badErrors: number } {
  const phases = (verdict?.phases ?? []).filter(
    (phase: PhaseStats) => phase.name === name || phase.name === `${name} / recovery`,
  );
  const answered: Record<string, number> = {};
  for (const phase of phases)
    for (const [status, count] of Object.entries(phase.answered)) answered[status] = (answered[status] ?? 0) + count;
  return {
    answered,
    noAnswer: phases.reduce((sum, phase) => sum + phase.noAnswer, 0),
    badErrors: phases.reduce((sum, phase) => sum + phase.badErrors, 0),
  };
}

const byStatus = (answered: Record<string, number>) =>
  Object.entries(answered)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ') || '-';

/** The "Must show" table, as markdown (printed, and written to CLUSTER_REPORT). */
/** The alert columns: the expected alert (or none, and why), fired and cleared (s from the fault's start), and every alert that fired. */
function alertCells(alert: FaultAlertResult | undefined): string {
  if (!alert) return '- | - | - | -';
  return `${alert.expected} | ${seconds(alert.firedS)} | ${seconds(alert.clearedS)} | ${alert.seen.join(', ') || '-'}`;
}

/** Requests of the load that failed in a phase and its recovery: no answer, or any status but 200 and 101. */
export function failedRequests(verdict: Verdict | undefined, name: string): number {
  const stats = statsOf(verdict, name);
  const notOk = Object.entries(stats.answered)
    .filter(([status]) => status !== '200' && status !== '101')
    .reduce((sum, [, count]) => sum + count, 0);
  return stats.noAnswer + notOk;
}

export function formatReport(
  results: readonly FaultResult[],
  verdict: Verdict | undefined,
  quietPhases: { before: string; after: string },
  rollTimes: readonly { node: string; outS: number }[] = [],
): string {
  const lines = [
    '| Fault | Recovered in (s) | Answered by status (fault + recovery) | No answer | Bad errors | Lease failover (s) | Alert (rules.yml) | Fired at (s) | Cleared at (s) | Alerts that fired meanwhile |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  const quietRow = (name: string) => {
    const stats = statsOf(verdict, name);
    lines.push(
      `| ${name} (no fault) | - | ${byStatus(stats.answered)} | ${stats.noAnswer} | ${stats.badErrors} | - | - | - | - | - |`,
    );
  };
  quietRow(quietPhases.before);
  for (const result of results) {
    const stats = statsOf(verdict, result.name);
    lines.push(
      `| ${result.name} | ${result.error ? `not applied: ${result.error}` : seconds(result.recoverS)} | ${byStatus(stats.answered)} | ${stats.noAnswer} | ${stats.badErrors} | ${seconds(result.failoverS)} | ${alertCells(result.alert)} |`,
    );
  }
  quietRow(quietPhases.after);
  if (results.some((result) => result.name === rollingUpgradeName)) {
    const stats = statsOf(verdict, rollingUpgradeName);
    const total = Object.values(stats.answered).reduce((sum, count) => sum + count, 0) + stats.noAnswer;
    lines.push(
      '',
      `Rolling upgrade (api1 then api2: drain in haproxy, SIGTERM, start, back in rotation): ${total} requests of the load, ${failedRequests(verdict, rollingUpgradeName)} failed; ${rollTimes.map((roll) => `${roll.node} out of rotation ${roll.outS.toFixed(1)} s`).join(', ') || 'not completed'}.`,
    );
  }
  if (verdict) {
    const { deliveries, ops, limit, ws } = verdict;
    lines.push(
      '',
      '| Deliveries expected | sent | unique | duplicates | missing | first attempts out of order |',
      '|---|---|---|---|---|---|',
      `| ${deliveries.expected} | ${deliveries.sent} | ${deliveries.unique} | ${deliveries.duplicates} | ${deliveries.missing} | ${deliveries.outOfOrder} |`,
      '',
      '| Ops accepted | landed | landed twice | reverted bundles | Limit: max accepted in a second (both APIs) | limit | windows | WS heads / reconnects |',
      '|---|---|---|---|---|---|---|---|',
      `| ${ops.accepted} | ${ops.landed} | ${ops.twice} | ${ops.revertedBundles} | ${limit.maxAcceptedInAWindow} | ${limit.limit} | ${limit.windows} | ${ws.headsReceived} / ${ws.reconnects} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Every broken invariant, in words (empty: the run passed). */
export function brokenInvariants(results: readonly FaultResult[], verdict: Verdict | undefined): string[] {
  const broken: string[] = [];
  if (!verdict) broken.push('no verdict from the load');
  broken.push(...(verdict?.violations ?? []));
  for (const result of results) {
    if (result.error) broken.push(`${result.name}: ${result.error}`);
    else if (result.recoverS === undefined) broken.push(`${result.name}: did not recover within 60 s (${result.lastState})`);
    else if (result.recoverS > recoveryLimitS)
      broken.push(`${result.name}: recovered in ${seconds(result.recoverS)} s > ${recoveryLimitS} s`);
    if (result.failoverS !== undefined && result.failoverS > failoverLimitS)
      broken.push(`${result.name}: lease failover ${seconds(result.failoverS)} s > ${failoverLimitS} s`);
    if (result.name.startsWith('kill -9 lease') && result.failoverS === undefined)
      broken.push(`${result.name}: the standby never took the leases`);
    if (result.alert?.required && result.alert.firedS === undefined)
      broken.push(`${result.name}: ${result.alert.expected} did not fire`);
    else if (result.alert?.required && result.alert.clearedS === undefined)
      broken.push(`${result.name}: ${result.alert.expected} fired and did not clear`);
  }
  if (results.some((result) => result.name === rollingUpgradeName)) {
    const failed = failedRequests(verdict, rollingUpgradeName);
    if (failed > 0) broken.push(`${rollingUpgradeName}: ${failed} requests of the load failed (no answer, or not 200/101)`);
  }
  for (const phase of verdict?.phases ?? []) {
    if ((phase.answered['500'] ?? 0) > 0) broken.push(`phase ${phase.name}: ${phase.answered['500']} answers with status 500`);
    if (phase.noAnswer > 0) broken.push(`phase ${phase.name}: ${phase.noAnswer} requests without an answer within 5 s`);
  }
  return broken;
}
