import { AppError } from '../core/errors.ts';

/**
 * How many data queries (transfers, balances, NFTs: reads of the index's large tables) each account
 * has running, capped at `perAccount` (limits.data_queries_per_account): one tenant's parallel
 * requests or batches cannot take every database connection and core. A request over the cap is
 * refused at once with 429, not queued: the caller learns its own concurrency is the cause. In this
 * process's memory, or shared by every node on one Redis (redis-data-query-slots.ts).
 */
export interface DataQuerySlots {
  /** Takes one of the account's slots, or throws 429 naming the cap; the returned function gives it back (once). */
  take(accountId: string): Promise<() => void>;
  close(): Promise<void>;
}

/** The slots of this process alone (no Redis), also what the Redis slots fall back on while Redis is away. */
export interface LocalDataQuerySlots extends DataQuerySlots {
  takeNow(accountId: string): () => void;
}

export function createDataQuerySlots(perAccount: number): LocalDataQuerySlots {
  const running = new Map<string, number>();
  const takeNow = (accountId: string) => {
    const now = running.get(accountId) ?? 0;
    if (now >= perAccount) throw tooManyDataQueries(perAccount);
    running.set(accountId, now + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (running.get(accountId) ?? 1) - 1;
      if (left <= 0) running.delete(accountId);
      else running.set(accountId, left);
    };
  };
  return {
    takeNow,
    take: async (accountId) => takeNow(accountId),
    close: async () => undefined,
  };
}

export function tooManyDataQueries(perAccount: number): AppError {
  return new AppError(
    'rate_limited',
    `this account already has ${perAccount} data queries running (limits.data_queries_per_account: transfers, balances and NFT reads); wait for one to finish`,
    { headers: { 'retry-after': '1' } },
  );
}

/**
 * `slots` whose refusal at the cap becomes `unavailable(refusal)` while `stalled()`: the account's
 * queries are then held by a database that stopped answering, not by its own concurrency, and a 429
 * would tell the client to slow down when it should retry shortly.
 */
export function unavailableWhileStalled(
  slots: DataQuerySlots,
  stalled: () => boolean,
  unavailable: (refusal: AppError) => AppError,
): DataQuerySlots {
  return {
    take: async (accountId) => {
      try {
        return await slots.take(accountId);
      } catch (error) {
        if (error instanceof AppError && error.code === 'rate_limited' && stalled()) throw unavailable(error);
        throw error;
      }
    },
    close: () => slots.close(),
  };
}
