/**
 * How long a client may take over each part of a request, so that a slow or stalled client cannot
 * hold a connection (and with it the shutdown) for long.
 */
export interface HttpTimeouts {
  /** From the connection (or the end of the previous request) to the end of the request's headers. */
  readonly headersMs: number;
  /** From the start of a request to its last body byte; the answer's own time is not counted. */
  readonly requestMs: number;
  /** An idle keep-alive connection between requests. */
  readonly keepAliveMs: number;
  /**
   * How often Node checks the two limits above (it does not time each connection): a limit is
   * enforced up to this much late. Node's default is 30 s.
   */
  readonly checkIntervalMs: number;
}

export const defaultHttpTimeouts: HttpTimeouts = {
  headersMs: 10_000,
  // A 5 MiB JSON-RPC batch still arrives in time at ~200 KB/s.
  requestMs: 30_000,
  // Longer than the 60 s idle timeout of common load balancers, so they close first (no race on reuse).
  keepAliveMs: 72_000,
  checkIntervalMs: 1_000,
};
