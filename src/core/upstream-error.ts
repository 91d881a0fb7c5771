/**
 * `overloaded`, `circuit_open`, `rate_limited` (every upstream out of budget or backing off after a 429),
 * `no_capable_upstream` (none serves the method or block) and `wrong_chain` come from a pool refusing
 * to send; `integrity`, from answers that contradict themselves on every upstream tried.
 */
export type UpstreamFailure =
  | 'timeout'
  | 'connection'
  | 'http_status'
  | 'overloaded'
  | 'circuit_open'
  | 'rate_limited'
  | 'no_capable_upstream'
  | 'wrong_chain'
  | 'integrity';

/** An upstream that did not answer with a JSON-RPC response; the raw detail stays in the cause. */
export class UpstreamError extends Error {
  constructor(
    readonly reason: UpstreamFailure,
    message: string,
    options: { cause?: unknown; status?: number; retryAfterMs?: number } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'UpstreamError';
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }
  readonly status: number | undefined;
  /** How long the node (or, for `rate_limited`, every upstream) asked to be left alone, when known. */
  readonly retryAfterMs: number | undefined;
}
