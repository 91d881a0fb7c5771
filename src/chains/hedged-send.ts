import type { PooledUpstream } from './pooled-upstream.ts';
import { isRetryable } from './retryable.ts';

export interface HedgedSend {
  first: PooledUpstream;
  body: string;
  /** How long the first attempt may take before a second upstream is asked too. */
  delayMs: number;
  /** Upstreams already tried for this call (a bit mask), shared with the caller's failover loop. */
  state: { tried: number };
  pick(tried: number): PooledUpstream | undefined;
  onHedge(): void;
}

/**
 * Sends to `first`; if it has not answered after `delayMs`, sends to one more upstream as well. The
 * first answer wins and the other is ignored (its outcome still feeds its upstream's stats). Rejects
 * with a retryable error only once every attempt started here has failed, so the caller fails over.
 */
export function sendHedged({ first, body, delayMs, state, pick, onHedge }: HedgedSend): Promise<string> {
  return new Promise((resolve, reject) => {
    let pending = 1;
    let done = false;
    const finish = () => {
      done = true;
      clearTimeout(timer);
    };
    const answer = (text: string) => {
      if (done) return;
      finish();
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
      second.send(body).then(answer, fail);
    }, delayMs);
    first.send(body).then(answer, fail);
  });
}
