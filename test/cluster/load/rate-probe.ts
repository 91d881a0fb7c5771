import type { ClusterTargets } from './contract.ts';
import { timedRequest } from './timed-request.ts';

export interface RateProbe {
  /** Accepted answers per rate-limit window (the window's end second, as the server said it). */
  readonly acceptedByWindow: Map<number, number>;
  /** The plan's per-second limit, as the servers' headers say (undefined before any answer). */
  limit(): number | undefined;
  /** Answers that break the error contract (a 500, a 5xx out of shape, a 503 without Retry-After), by "phase: status". */
  badAnswers(): Map<string, number>;
  /** Accepted answers that named no window (a limiter that did not count them). */
  unwindowed(): number;
  stop(): Promise<void>;
}

/**
 * Every `everyMs`, `burst` simultaneous cheap calls with the free key, split across the API processes
 * directly (not the load balancer). Accepted answers are grouped by the window the server names
 * (X-RateLimit-Reset: the end of the Redis-clock second that counted it), so the check is exact.
 */
export function startRateProbe(
  deps: { targets: ClusterTargets; freeKey: string; phaseName: () => string },
  options: { everyMs?: number; burst?: number } = {},
): RateProbe {
  const acceptedByWindow = new Map<number, number>();
  const bad = new Map<string, number>();
  let limit: number | undefined;
  let unwindowed = 0;
  let running: Promise<void> | undefined;
  const urls = deps.targets.apiUrls.map((url) => `${url}/v1/rpc/${deps.targets.chain}/${deps.targets.network}`);
  const burst = options.burst ?? 40;

  async function fire(): Promise<void> {
    await Promise.all(
      Array.from({ length: burst }, async (_, index) => {
        const answer = await timedRequest(urls[index % urls.length]!, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': deps.freeKey },
          body: JSON.stringify({ jsonrpc: '2.0', id: index, method: 'eth_chainId', params: [] }),
        });
        if (answer.outcome.status !== undefined && answer.outcome.bad) {
          const where = `phase ${deps.phaseName()}: status ${answer.status}`;
          bad.set(where, (bad.get(where) ?? 0) + 1);
        }
        const headerLimit = Number(answer.headers?.get('x-ratelimit-limit'));
        if (Number.isInteger(headerLimit) && headerLimit > 0) limit = Math.min(limit ?? headerLimit, headerLimit);
        if (answer.status !== 200) return;
        const window = Number(answer.headers?.get('x-ratelimit-reset'));
        if (!Number.isInteger(window) || window <= 0) {
          unwindowed++;
          return;
        }
        acceptedByWindow.set(window, (acceptedByWindow.get(window) ?? 0) + 1);
      }),
    );
  }

  const timer = setInterval(() => {
    if (running) return; // the last burst is still out (answers take up to 5 s during a fault)
    running = fire().finally(() => {
      running = undefined;
    });
  }, options.everyMs ?? 2_000);

  return {
    acceptedByWindow,
    limit: () => limit,
    badAnswers: () => bad,
    unwindowed: () => unwindowed,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
