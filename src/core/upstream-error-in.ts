import { AppError } from './errors.ts';
import { UpstreamError } from './upstream-error.ts';

/**
 * The pool's failure behind an error, when there is one: viem (the service's own public and wallet
 * clients) wraps it in its own errors (`UnknownRpcError`, `CallExecutionError`...) as their `cause`.
 */
export function upstreamErrorIn(error: unknown): UpstreamError | undefined {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 10; depth++) {
    if (current instanceof UpstreamError) return current;
    current = current.cause;
  }
  return undefined;
}

/** A REST answer for a read the network's upstreams could not serve: 503, retryable (docs/outages.md). */
export function upstreamUnavailable(upstream: UpstreamError, cause: unknown): AppError {
  const retryAfterS = Math.max(1, Math.ceil((upstream.retryAfterMs ?? 1_000) / 1_000));
  return new AppError('service_unavailable', "the chain's upstream is unavailable; retry with exponential backoff", {
    cause,
    headers: { 'retry-after': String(retryAfterS) },
  });
}
