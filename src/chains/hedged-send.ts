import { spanEvent, tracingOn } from '../tracing/tracing.ts';
import type { PooledUpstream } from './pooled-upstream.ts';
import { isRetryable } from './retryable.ts';

/** One call's failover state, shared by the pool's loop and the hedge. */
export interface AttemptState {
  /** Upstreams already tried for this call (a bit mask). */
  tried: number;
  /** The upstream whose answer won. */
  answeredBy: PooledUpstream | undefined;
}

export interface HedgedSend {
  first: PooledUpstream;
  send(upstream: PooledUpstream): Promise<string>;
  /** How long the first attempt may take before a second upstream is asked too. */
  delayMs: number;
  state: AttemptState;
  pick(tried: number): PooledUpstream | undefined;
  onHedge(): void;
  /**
   * Whether the caller would refuse this answer (a node that lacks the block): while the other attempt
   * is under way it waits for that one, and is answered only if the other fails too.
   */
  refuses?(text: string, upstream: PooledUpstream): boolean;
}

/**
 * Sends to `first`; if it has not answered after `delayMs`, sends to one more upstream as well. The
 * first answer wins and the other is ignored (its outcome still feeds its upstream's stats). Rejects
 * with a retryable error only once every attempt started here has failed, so the caller fails over.
 */
export function sendHedged({ first, send, delayMs, state, pick, onHedge, refuses }: HedgedSend): Promise<string> {
  return new Promise((resolve, reject) => {
    let pending = 1;
    let done = false;
    let held: { text: string; upstream: PooledUpstream } | undefined;
    const finish = () => {
      done = true;
      clearTimeout(timer);
    };
    const answer = (text: string, upstream: PooledUpstream) => {
      finish();
      state.answeredBy = upstream;
      resolve(text);
    };
    const answerFrom = (upstream: PooledUpstream) => (text: string) => {
      if (done) return;
      // A lagging node's null must not win the race against the node that has the block.
      if (pending > 1 && refuses?.(text, upstream)) {
        pending--;
        held ??= { text, upstream };
        return;
      }
      answer(text, upstream);
    };
    const fail = (error: unknown) => {
      if (done) return;
      if (--pending > 0 && isRetryable(error)) return;
      if (held !== undefined && isRetryable(error)) return answer(held.text, held.upstream);
      finish();
      reject(error);
    };
    const timer = setTimeout(() => {
      const second = pick(state.tried);
      if (second === undefined || done) return;
      state.tried |= second.bit;
      pending++;
      onHedge();
      if (tracingOn()) spanEvent('upstream hedge', { 'blockyard.upstream': second.label, 'blockyard.after_ms': delayMs });
      send(second).then(answerFrom(second), fail);
    }, delayMs);
    send(first).then(answerFrom(first), fail);
  });
}
