import type { UpstreamConditionName } from '../chains/upstream-condition.ts';
import type { UpstreamStats } from '../chains/upstream-pool.ts';

/** Conditions of an upstream that serves reads now (a lagging node serves what it has; a 429 is a pause). */
const serving: ReadonlySet<UpstreamConditionName> = new Set(['ok', 'lagging', 'bad_answers', 'rate_limited']);

/**
 * Whether a network can serve: at least one upstream verified as its chain and serving. Otherwise why
 * not, naming each upstream's condition and reason. Read from the pool's state (head polls keep it
 * within 2 s of the truth), so a readiness check costs the upstreams nothing.
 */
export function networkReadiness(upstreams: readonly UpstreamStats[]): { ready: true } | { ready: false; reason: string } {
  if (upstreams.some((upstream) => upstream.identity === 'verified' && serving.has(upstream.condition.name))) {
    return { ready: true };
  }
  const each = upstreams
    .map(({ upstream, condition }) => `${upstream}: ${condition.name}${condition.reason ? ` (${condition.reason})` : ''}`)
    .join('; ');
  if (upstreams.every((upstream) => upstream.identity === 'refused')) {
    return { ready: false, reason: `every upstream serves another chain (${each})` };
  }
  return { ready: false, reason: `no upstream answers (${each})` };
}
