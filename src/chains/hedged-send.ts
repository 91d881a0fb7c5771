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
}

/**
 * Sends to `first`; if it has not answered after `delayMs`, sends to one more upstream as well. The
 * first answer wins and the other is ignored (its outcome still feeds its upstream's stats). Rejects
 * with a retryable error only once every attempt started here has failed, so the caller fails over.
 */
export function sendHedged({ first, send, delayMs, state, pick, onHedge }: HedgedSend): Promise<string> {
  return new Promise((resolve, reject) => {
    let pending = 1;
    let done = false;
    const finish = () => {
      done = true;
      clearTimeout(timer);
    };
    const answerFrom = (upstream: PooledUpstream) => (text: string) => {
      if (done) return;
      finish();
      state.answeredBy = upstream;
      resolve(text);
    };
    const fail = (error: unknown) => {
      if (done) return;
      if (--pending > 0 && isRetryable(error)) return;
      finish();
      reject(error);
    };
    const timer = setTimeout(() => {
      const second = pick(state.tried);
      if (second === undefined || done) return;
      state.tried |= second.bit;
      pending++;
      onHedge();
      send(second).then(answerFrom(second), fail);
    }, delayMs);
    send(first).then(answerFrom(first), fail);
  });
}
