import { UpstreamError } from '../core/upstream-error.ts';
import type { PooledUpstream } from './pooled-upstream.ts';

/**
 * The pool's refusal when the circuit breaker of every upstream that may serve the chain (all but those
 * found serving another; an open breaker also sends an upstream back to be verified again) is open:
 * `circuit_open`, saying so (not the failure that opened it, which is stale by now), with when the
 * first probe is due as `retryAfterMs`. Undefined when some such upstream's breaker lets calls through.
 * @example breakersOpenError('ethereum/mainnet', upstreams, performance.now())?.message
 * // 'the circuit breaker of the only upstream of ethereum/mainnet is open after repeated failures (last: timeout); it is tried again in 4 s'
 */
export function breakersOpenError(network: string, upstreams: readonly PooledUpstream[], now: number): UpstreamError | undefined {
  const verified = upstreams.filter((upstream) => upstream.identity !== 'refused');
  if (verified.length === 0 || verified.some((upstream) => upstream.breaker.isAvailable(now))) return undefined;
  const waits = verified.map((upstream) => upstream.breaker.msUntilProbe(now));
  const soonestMs = Math.min(...waits);
  const causes = [...new Set(verified.map((upstream) => upstream.lastFailure).filter((cause) => cause !== undefined))];
  const whose =
    verified.length === 1 ? `the only upstream of ${network} is` : `all ${verified.length} upstreams of ${network} are`;
  const last = causes.length === 0 ? '' : ` (last: ${causes.join(', ')})`;
  // A breaker past its cooldown with a probe on its way: the probe's outcome decides, at once.
  const when =
    soonestMs > 0
      ? `${verified.length === 1 ? 'it is' : 'the first is'} tried again in ${Math.ceil(soonestMs / 1_000)} s`
      : 'a probe is on its way';
  return new UpstreamError('circuit_open', `the circuit breaker of ${whose} open after repeated failures${last}; ${when}`, {
    retryAfterMs: soonestMs > 0 ? soonestMs : 1_000,
  });
}
