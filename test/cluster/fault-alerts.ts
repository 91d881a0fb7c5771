import type { LivePrometheus } from '../deploy/live-prometheus.ts';
import type { NodeName } from './nodes.ts';
import { sleep } from './shell.ts';

/**
 * Which alert of deploy/prometheus/rules.yml answers each fault of the run. `alerts`: any of them
 * (several rules may honestly describe one fault); `instance`: only that node's series (the rule is
 * per node); `clearsWith`: the alert ends only with that later step (a killed worker stays down until
 * it is restarted). `none`: no rule matches, and why; alerts seen then are still reported.
 */
export type AlertExpectation =
  | { alerts: readonly string[]; instance?: () => NodeName | undefined; clearsWith?: string }
  | { none: string };

/** A series of a range-vector answer: its labels and its samples ([seconds, value]). */
interface RangeSeries {
  metric: Record<string, string>;
  values: [number, string][];
}

/** Evaluations are 1 s apart: a firing alert has a sample at each; a gap longer than this is a resolve. */
const evaluationGapMs = 1_600;

/**
 * The alert history of the run, read from Prometheus's own `ALERTS{alertstate="firing"}` series (one
 * sample per evaluation while an alert fires): an alert that fired for one evaluation is not missed,
 * as a poll of /api/v1/alerts could.
 */
export class AlertHistory {
  constructor(private readonly prometheus: LivePrometheus) {}

  /** Every sample of firing alerts whose labels match `selector` in [from, to] (ms), by series. */
  private async firing(selector: string, from: number, to: number): Promise<RangeSeries[]> {
    const rangeS = Math.max(1, Math.ceil((to - from) / 1000));
    const series = (await this.prometheus.query(`ALERTS{alertstate="firing"${selector}}[${rangeS}s]`, to)) as RangeSeries[];
    return series.map((one) => ({ ...one, values: one.values.filter(([at]) => at * 1000 >= from) }));
  }

  /**
   * In [from, to]: when a matching alert first fired, and when it was resolved (the first evaluation
   * after it with no matching alert firing); undefined: never fired / not resolved in the span.
   */
  async span(expectation: AlertExpectation, from: number, to: number): Promise<{ firedAt?: number; clearedAt?: number }> {
    const selector = selectorOf(expectation);
    if (selector === undefined) return {};
    const times = (await this.firing(selector, from, to)).flatMap((one) => one.values.map(([at]) => Math.round(at * 1000)));
    return spanOfFiring(times, to);
  }

  /** Names (with instance) of every alert that fired in [from, to]. */
  async seen(from: number, to: number): Promise<string[]> {
    const names = new Set<string>();
    for (const one of await this.firing('', from, to))
      if (one.values.length > 0) names.add(`${one.metric.alertname}${one.metric.instance ? `{${one.metric.instance}}` : ''}`);
    return [...names].sort();
  }
}

/**
 * When an alert first fired and when it was resolved, from the times (ms) of its firing samples, as
 * known at `to`. Resolved: the first gap of more than one evaluation after the first firing. The last
 * sample before `to` is a resolve only once `to` is past it by such a gap as well: Prometheus answers a
 * query before its newest evaluation is stored, so a firing alert's newest sample can lag `to` by a
 * second (the cluster run once took that lag for a resolve, stopped waiting, and then judged the alert
 * still firing). Pure.
 */
export function spanOfFiring(times: readonly number[], to: number): { firedAt?: number; clearedAt?: number } {
  const sorted = [...new Set(times)].sort((a, b) => a - b);
  const firedAt = sorted[0];
  if (firedAt === undefined) return {};
  let last = firedAt;
  let gapSeen = false;
  for (const at of sorted) {
    if (at - last > evaluationGapMs) {
      gapSeen = true;
      break;
    }
    last = at;
  }
  if (!gapSeen && to - last <= evaluationGapMs) return { firedAt };
  return { firedAt, clearedAt: last + 1_000 };
}

/** The label matchers of an expectation's alerts (undefined for `none`). */
function selectorOf(expectation: AlertExpectation): string | undefined {
  if ('none' in expectation) return undefined;
  const instance = expectation.instance?.();
  return `, alertname=~"${expectation.alerts.join('|')}"${instance ? `, instance="${instance}"` : ''}`;
}

/** What the report shows for one fault's alert. */
export interface FaultAlertResult {
  /** The expected alert(s), or "none: why". */
  readonly expected: string;
  readonly required: boolean;
  /** Seconds from the fault's start. */
  readonly firedS?: number;
  readonly clearedS?: number;
  /** Every alert that fired meanwhile (name{instance}). */
  readonly seen: readonly string[];
}

/**
 * Waits (bounded) until the expected alert has fired since `since` and been resolved, so that the
 * next fault starts with it quiet. Returns at once for `none`.
 */
export async function waitForAlertCycle(
  history: AlertHistory,
  expectation: AlertExpectation,
  since: number,
  timeoutMs: number,
): Promise<void> {
  if ('none' in expectation) return;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { clearedAt } = await history.span(expectation, since, Date.now()).catch(() => ({ clearedAt: undefined }));
    if (clearedAt !== undefined) return;
    await sleep(1_000);
  }
}

export async function alertResult(
  history: AlertHistory,
  expectation: AlertExpectation,
  window: { from: number; to: number },
): Promise<FaultAlertResult> {
  const seen = await history.seen(window.from, window.to);
  if ('none' in expectation) return { expected: `none: ${expectation.none}`, required: false, seen };
  const instance = expectation.instance?.();
  const { firedAt, clearedAt } = await history.span(expectation, window.from, window.to);
  const seconds = (at: number | undefined) => (at === undefined ? undefined : (at - window.from) / 1000);
  return {
    expected: `${expectation.alerts.join(' or ')}${instance ? `{${instance}}` : ''}`,
    required: true,
    firedS: seconds(firedAt),
    clearedS: seconds(clearedAt),
    seen,
  };
}
