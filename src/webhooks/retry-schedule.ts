/**
 * When the next attempt of a failed delivery goes, or undefined when the retries are spent.
 * `attemptsMade` counts the attempts so far (1 after the first). Each delay gets up to ±10% jitter, so
 * deliveries that failed together do not all come back at once. A `Retry-After` from the endpoint
 * (seconds) is honoured when it asks for longer.
 * @example nextAttemptDelayMs([10, 60], 1, undefined, () => 0.5) // 10000
 */
export function nextAttemptDelayMs(
  scheduleS: readonly number[],
  attemptsMade: number,
  retryAfterS: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  const delayS = scheduleS[attemptsMade - 1];
  if (delayS === undefined) return undefined;
  const jittered = delayS * 1000 * (0.9 + 0.2 * random());
  const asked = retryAfterS === undefined ? 0 : Math.min(retryAfterS, maxRetryAfterS) * 1000;
  return Math.round(Math.max(jittered, asked));
}

/** A Retry-After beyond a day is read as a day: an endpoint cannot park a delivery forever. */
const maxRetryAfterS = 86_400;

/** `Retry-After` as seconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** The next UTC midnight after `now`: when a day's delivery cap starts again. */
export function nextUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}
