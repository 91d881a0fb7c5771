import type { RateLimit } from './behaviour.ts';
import type { RpcErrorObject } from './json-rpc.ts';

/** Alchemy's words for a throughput refusal (alchemy.com/docs/reference/throughput; seen in many client logs). */
const alchemyThroughputMessage =
  'Your app has exceeded its compute units per second capacity. If you have retries enabled, you can safely ignore this message. If not, check out https://docs.alchemy.com/reference/throughput';

/** A bucket of `rps` tokens refilled continuously at `rps` per second, so a one-second burst passes. */
export interface TokenBucket {
  take(count: number): boolean;
}

export function createTokenBucket(rps: number, now: () => number = () => performance.now()): TokenBucket {
  const capacity = Math.max(1, rps);
  let tokens = capacity;
  let refilledAt = now();
  return {
    take(count) {
      const at = now();
      tokens = Math.min(capacity, tokens + ((at - refilledAt) / 1000) * rps);
      refilledAt = at;
      if (tokens < count) return false;
      tokens -= count;
      return true;
    },
  };
}

/** Which of `count` calls are served: `http` style admits or refuses a request whole, `jsonrpc` call by call. */
export function admitCalls(bucket: TokenBucket, count: number, style: RateLimit['style']): boolean[] {
  if (style === 'http') return new Array<boolean>(count).fill(bucket.take(count));
  return Array.from({ length: count }, () => bucket.take(1));
}

/**
 * The JSON-RPC error of a refused call. `http` style: Infura's documented 429 body (code -32005 with the
 * allowed and current rate, github.com/INFURA/infura/issues/201). `jsonrpc` style: Alchemy's code 429.
 */
export function rateLimitError(limit: RateLimit, currentRps: number): RpcErrorObject {
  if (limit.style === 'jsonrpc') return { code: 429, message: alchemyThroughputMessage };
  return {
    code: -32005,
    message: 'project ID request rate exceeded',
    data: {
      rate: { allowed_rps: limit.rps, backoff_seconds: retryAfterSeconds(limit), current_rps: currentRps },
      see: 'https://infura.io/dashboard',
    },
  };
}

export function retryAfterSeconds(limit: RateLimit): number {
  return limit.retryAfterS ?? 1;
}
