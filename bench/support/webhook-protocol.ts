// What bench/webhooks.ts reads from its receiver process (bench/support/webhook-receiver.ts).

export interface ReceiverStats {
  count: number;
  /** Monotonic microseconds of the first and the last receipt (0 before any). */
  firstUs: number;
  lastUs: number;
  /** Deliveries of an event (idempotency key) the same URL had already received. */
  duplicates: number;
  bytes: number;
  /** The latency group only: per delivery [block number, received monotonic us, received wall ms], flattened. */
  heads?: number[];
}

/** One delivery as received: the headers a webhook request carries, and its body. */
export interface ReceiverSample {
  headers: Record<string, string>;
  body: string;
}

/** Monotonic microseconds, comparable across processes on one Linux machine (CLOCK_MONOTONIC). */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** Wall-clock milliseconds with sub-millisecond digits (compared with the database's timestamps). */
export function wallMs(): number {
  return performance.timeOrigin + performance.now();
}
