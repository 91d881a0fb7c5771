import type { Logger } from 'pino';
import type { StatusClass } from './status-class.ts';

/** One pending row of `usage_minutes`: counts not yet written. */
export interface UsageRow {
  /** Start of the minute, ms since the epoch. */
  readonly minute: number;
  readonly accountId: string;
  readonly keyId: string;
  readonly network: string;
  readonly method: string;
  readonly statusClass: StatusClass;
  requests: number;
  computeUnits: number;
}

/** Adds rows to the table (counts added to what is there); rejects when nothing was written. */
export type UsageWriter = (rows: readonly UsageRow[]) => Promise<void>;

export interface UsageRecorder {
  /** Counts one request: a map update, nothing else (called on the JSON-RPC hot path). */
  record(accountId: string, keyId: string, network: string, method: string, statusClass: StatusClass, computeUnits: number): void;
  /** Writes what is pending now; a failed write keeps it for the next one. */
  flushNow(): Promise<void>;
  /** Stops the timer and writes what is pending. */
  close(): Promise<void>;
}

export interface UsageRecorderOptions {
  write: UsageWriter;
  logger: Logger;
  /** Default 5 s: the usage endpoint lags by at most this much. */
  intervalMs?: number;
  /** Minutes kept while the database refuses writes; beyond them the oldest are dropped. Default 60. */
  maxPendingMinutes?: number;
  /** Distinct rows kept at most (a client inventing method names must not grow the map without end). Default 100,000. */
  maxPendingRows?: number;
  now?: () => number;
}

const minuteMs = 60_000;

export function createUsageRecorder(options: UsageRecorderOptions): UsageRecorder {
  const { write, logger, maxPendingMinutes = 60, maxPendingRows = 100_000, now = Date.now } = options;
  let pending = new Map<string, UsageRow>();
  let refused = 0;
  // Flushes run one after another, so a flush asked for during another still writes what came since.
  let flushes = Promise.resolve();

  const flush = async () => {
    if (refused > 0) {
      logger.warn({ requests: refused, maxPendingRows }, 'usage rows beyond the pending limit were not counted');
      refused = 0;
    }
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    try {
      await write([...batch.values()]);
    } catch (error) {
      logger.warn({ err: error, rows: batch.size }, 'could not write usage; keeping it for the next try');
      putBack(batch);
    }
  };

  const putBack = (batch: Map<string, UsageRow>) => {
    for (const [key, row] of batch) {
      const newer = pending.get(key);
      if (newer === undefined) pending.set(key, row);
      else {
        newer.requests += row.requests;
        newer.computeUnits += row.computeUnits;
      }
    }
    dropOldMinutes();
  };

  const dropOldMinutes = () => {
    const minutes = [...new Set([...pending.values()].map((row) => row.minute))].sort((a, b) => a - b);
    if (minutes.length <= maxPendingMinutes) return;
    const keepFrom = minutes[minutes.length - maxPendingMinutes]!;
    let requests = 0;
    for (const [key, row] of pending) {
      if (row.minute >= keepFrom) continue;
      requests += row.requests;
      pending.delete(key);
    }
    logger.warn(
      { requests, minutes: minutes.length - maxPendingMinutes, oldestKept: new Date(keepFrom).toISOString() },
      'usage could not be written for too long: dropped the oldest minutes',
    );
  };

  const flushNow = () => {
    flushes = flushes.then(flush);
    return flushes;
  };

  const timer = setInterval(() => void flushNow(), options.intervalMs ?? 5_000);
  timer.unref();

  return {
    record(accountId, keyId, network, method, statusClass, computeUnits) {
      const minute = Math.floor(now() / minuteMs);
      const key = `${minute}\n${accountId}\n${keyId}\n${network}\n${method}\n${statusClass}`;
      const row = pending.get(key);
      if (row !== undefined) {
        row.requests++;
        row.computeUnits += computeUnits;
        return;
      }
      if (pending.size >= maxPendingRows) {
        refused++;
        return;
      }
      pending.set(key, {
        minute: minute * minuteMs,
        accountId,
        keyId,
        network,
        method,
        statusClass,
        requests: 1,
        computeUnits,
      });
    },
    flushNow,
    async close() {
      clearInterval(timer);
      await flushNow();
      if (pending.size > 0) {
        const requests = [...pending.values()].reduce((sum, row) => sum + row.requests, 0);
        logger.error({ requests, rows: pending.size }, 'usage not written at shutdown: these requests are not counted');
      }
    },
  };
}
