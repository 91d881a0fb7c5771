import type { Logger } from 'pino';
import type { BreakerState } from './circuit-breaker.ts';

/** What an upstream is doing now, worst first: the first that applies names its condition. */
export const upstreamConditions = [
  'wrong_chain',
  'unreachable',
  'recovering',
  'verifying',
  'rate_limited',
  'bad_answers',
  'lagging',
  'ok',
] as const;
export type UpstreamConditionName = (typeof upstreamConditions)[number];

export interface UpstreamCondition {
  readonly name: UpstreamConditionName;
  /** Why, in words naming the figures (null when ok). */
  readonly reason: string | null;
  /** When it entered this condition (ms since the epoch). */
  readonly since: number;
}

/** The facts an upstream's condition is worked out from, read whenever one of them may have changed. */
export interface ConditionFacts {
  readonly identity: 'unverified' | 'verified' | 'refused';
  readonly identityProblem: string | undefined;
  readonly breaker: BreakerState;
  readonly lastFailure: string | undefined;
  readonly backingOffMs: number;
  /** Its last answer was a 429 and nothing succeeded since (its pause may be over): still rate limited. */
  readonly rateLimitedSinceSuccess?: boolean;
  readonly badAnswer: string | undefined;
  readonly lagBlocks: number;
  readonly maxLagBlocks: number;
}

/** Works out the condition of one upstream from its facts (pure). */
export function conditionOf(facts: ConditionFacts): { name: UpstreamConditionName; reason: string | null } {
  if (facts.identity === 'refused') return { name: 'wrong_chain', reason: facts.identityProblem ?? 'wrong chain' };
  if (facts.breaker === 'open') return { name: 'unreachable', reason: facts.lastFailure ?? 'failing' };
  if (facts.breaker === 'half_open') return { name: 'recovering', reason: 'one probe let through after failures' };
  if (facts.identity === 'unverified') return { name: 'verifying', reason: facts.identityProblem ?? 'chain id not checked yet' };
  if (facts.backingOffMs > 0) {
    return { name: 'rate_limited', reason: `the node answered 429; nothing sent for ${Math.ceil(facts.backingOffMs / 1000)} s` };
  }
  if (facts.rateLimitedSinceSuccess)
    return { name: 'rate_limited', reason: 'the node answered 429; asked again after its pause' };
  if (facts.badAnswer !== undefined) return { name: 'bad_answers', reason: facts.badAnswer };
  if (facts.lagBlocks > facts.maxLagBlocks) {
    return { name: 'lagging', reason: `${facts.lagBlocks} blocks behind the best head (more than ${facts.maxLagBlocks})` };
  }
  return { name: 'ok', reason: null };
}

export interface ConditionMonitor {
  readonly current: UpstreamCondition;
  /** Works the condition out again; a change is logged (one warn line) and counted. */
  refresh(): void;
}

export interface ConditionMonitorOptions {
  facts(): ConditionFacts;
  logger: Logger;
  /** The upstream's label and its network, for the log line. */
  upstream: string;
  network: string;
  onChange(to: UpstreamConditionName, from: UpstreamConditionName): void;
}

/** Follows one upstream's condition: every change is one warn line naming the upstream, the states and the reason. */
export function createConditionMonitor(options: ConditionMonitorOptions): ConditionMonitor {
  let current: UpstreamCondition = { name: 'verifying', reason: 'chain id not checked yet', since: Date.now() };
  let everOk = false;
  /** Probes a dead node's breaker let through (one per cooldown) that failed, since it was last anything else. */
  let failedProbes = 0;
  return {
    get current() {
      return current;
    },
    refresh() {
      const next = conditionOf(options.facts());
      if (next.name === current.name) {
        if (next.reason !== current.reason) current = { ...next, since: current.since };
        return;
      }
      const from = current.name;
      current = { ...next, since: Date.now() };
      const probeLetThrough = from === 'unreachable' && next.name === 'recovering';
      const probeFailed = from === 'recovering' && next.name === 'unreachable';
      if (probeFailed) failedProbes++;
      else if (!probeLetThrough) failedProbes = 0;
      // The first check passing at start is no news; nor is a dead node failing its probe again (one every
      // cooldown, forever): after its first failed probe, the probe cycles are debug lines. Every other change is news.
      const repeatedProbe = (probeLetThrough && failedProbes >= 1) || (probeFailed && failedProbes >= 2);
      const level = !everOk && next.name === 'ok' && from === 'verifying' ? 'info' : repeatedProbe ? 'debug' : 'warn';
      if (next.name === 'ok') everOk = true;
      options.logger[level](
        { upstream: options.upstream, network: options.network, from, to: next.name, reason: next.reason },
        `upstream ${options.upstream} of ${options.network}: ${from} -> ${next.name}${next.reason ? ` (${next.reason})` : ''}`,
      );
      options.onChange(next.name, from);
    },
  };
}
