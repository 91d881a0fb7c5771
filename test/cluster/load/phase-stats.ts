import type { PhaseStats } from './contract.ts';

/** What one request through the load balancer came to. */
export type Outcome = { status: number; ms: number; bad: boolean } | { status: undefined; ms: number };

/**
 * Per-phase counters of every request the load makes through the load balancer. The harness names
 * the phases; whatever happens before the first name counts toward 'start'.
 */
export class PhaseRecorder {
  private readonly phases: PhaseStats[] = [];
  private current: PhaseStats;
  /** Examples of bad answers, per phase (for the violation text). */
  private readonly badStatuses = new Map<string, Map<string, number>>();

  constructor(first = 'start') {
    this.current = this.open(first);
  }

  get phaseName(): string {
    return this.current.name;
  }

  begin(name: string): void {
    this.current = this.open(name);
  }

  record(outcome: Outcome): void {
    const stats = this.current;
    stats.slowestMs = Math.max(stats.slowestMs, Math.round(outcome.ms));
    if (outcome.status === undefined) {
      stats.noAnswer++;
      return;
    }
    const status = String(outcome.status);
    stats.answered[status] = (stats.answered[status] ?? 0) + 1;
    if (outcome.bad) {
      stats.badErrors++;
      const byStatus = this.badStatuses.get(stats.name) ?? new Map<string, number>();
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      this.badStatuses.set(stats.name, byStatus);
    }
  }

  wsGap(): void {
    this.current.wsGaps++;
  }

  all(): PhaseStats[] {
    return this.phases.map((phase) => ({ ...phase, answered: { ...phase.answered } }));
  }

  /** "phase kill-api1: 3 answers with status 500", "phase x: 2 requests got no answer within 5 s". */
  violations(): string[] {
    const found: string[] = [];
    for (const phase of this.phases) {
      for (const [status, count] of this.badStatuses.get(phase.name) ?? []) {
        found.push(`phase ${phase.name}: ${count} answers with status ${status} that break the error contract`);
      }
      if (phase.noAnswer > 0) found.push(`phase ${phase.name}: ${phase.noAnswer} requests got no answer within 5 s`);
    }
    return found;
  }

  private open(name: string): PhaseStats {
    const stats: PhaseStats = { name, answered: {}, noAnswer: 0, slowestMs: 0, badErrors: 0, wsGaps: 0 };
    this.phases.push(stats);
    return stats;
  }
}
