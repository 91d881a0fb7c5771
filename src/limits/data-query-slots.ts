import { AppError } from '../core/errors.ts';

/**
 * How many data queries (transfers, balances, NFTs: reads of the index's large tables) each account
 * has running on this node, capped at `perAccount` (limits.data_queries_per_account): one tenant's
 * parallel requests or batches cannot take every database connection and core. A request over the cap
 * is refused at once with 429, not queued: the caller learns its own concurrency is the cause.
 */
export interface DataQuerySlots {
  /** Takes one of the account's slots, or throws 429 naming the cap; the returned function gives it back (once). */
  take(accountId: string): () => void;
  /** Slots the account holds now (for tests and metrics). */
  held(accountId: string): number;
}

export function createDataQuerySlots(perAccount: number): DataQuerySlots {
  const running = new Map<string, number>();
  return {
    take(accountId) {
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
    },
    held: (accountId) => running.get(accountId) ?? 0,
  };
}

function tooManyDataQueries(perAccount: number): AppError {
  return new AppError(
    'rate_limited',
    `this account already has ${perAccount} data queries running (limits.data_queries_per_account: transfers, balances and NFT reads); wait for one to finish`,
    { headers: { 'retry-after': '1' } },
  );
}
