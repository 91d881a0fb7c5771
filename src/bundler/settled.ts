export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** The promise's outcome as a value: one that is never awaited (its op refused first) rejects nobody. */
export const settledOf = <T>(promise: Promise<T>): Promise<Settled<T>> =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
