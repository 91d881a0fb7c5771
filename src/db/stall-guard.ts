import type { PostgresPool, PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { isAppError } from '../core/errors.ts';
import { asDatabaseError, databaseUnavailable } from './unavailable.ts';

/**
 * A server that is stopped (SIGSTOP, a frozen VM, a network that drops packets) accepts connections
 * and never answers: queries would wait forever. A query slower than `suspectAfterMs` makes the guard
 * probe the server with a fresh connection; a probe without an answer within `probeTimeoutMs` marks
 * the database down: every waiting query fails with 503 (its connection is discarded), and new ones
 * fail at once until a probe (every `recheckMs`) succeeds. A slow query on a live server only costs
 * one probe: nothing is abandoned while the server answers probes.
 */
export interface StallGuardOptions {
  url: string;
  suspectAfterMs?: number;
  probeTimeoutMs?: number;
  recheckMs?: number;
}

type ProbeKind = 'connect' | 'query';

interface Waiting {
  abandon(error: Error): void;
}

export interface StallGuard {
  readonly down: boolean;
  /** The pool Kysely is given: `inner`'s, with every connect and query guarded. */
  guard(inner: GuardablePool): PostgresPool;
  close(): void;
}

/** A pool client whose release can discard it (pg's `release(error)`). */
export interface GuardedClient {
  query: PostgresPoolClient['query'];
  release(discard?: Error): void;
}

export interface GuardablePool {
  connect(): Promise<GuardedClient>;
  end(): Promise<void>;
}

export function createStallGuard(options: StallGuardOptions): StallGuard {
  const { url, suspectAfterMs = 600, probeTimeoutMs = 1_000, recheckMs = 500 } = options;
  const waiting = new Set<Waiting>();
  let down = false;
  let recheck: NodeJS.Timeout | undefined;
  let closed = false;

  /** Kept between probes: a round trip on it costs less than a new session on a busy server. */
  let probeClient: pg.Client | undefined;
  const dropProbeClient = () => {
    probeClient?.end().catch(() => undefined);
    probeClient = undefined;
  };

  /**
   * `query`: a round trip on the kept connection (a stalled query: is the server answering at all?).
   * `connect`: a new session (a stalled connect: is the server accepting sessions? A stopped
   * postmaster leaves the open sessions answering while new ones hang).
   */
  async function probeOnce(kind: ProbeKind): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      // After this loop turn's I/O: an answer that waited behind a busy event loop still counts.
      timer = setTimeout(() => setImmediate(() => resolve(false)), probeTimeoutMs);
    });
    let fresh: pg.Client | undefined;
    const answered = (async () => {
      if (kind === 'connect' || !probeClient) {
        const client = new pg.Client({ connectionString: url, keepAlive: true });
        client.on('error', () => {
          if (probeClient === client) probeClient = undefined;
          client.end().catch(() => undefined);
        });
        fresh = client;
        await client.connect();
        await client.query('select 1');
        if (kind === 'query' || !probeClient) probeClient = client;
        else client.end().catch(() => undefined);
        fresh = undefined;
        return true as const;
      }
      await probeClient.query('select 1');
      return true as const;
    })().catch(() => false as const);
    const alive = await Promise.race([answered, timedOut]);
    clearTimeout(timer);
    if (!alive) {
      fresh?.end().catch(() => undefined);
      dropProbeClient();
    }
    return alive;
  }

  const probing = new Map<ProbeKind, Promise<boolean>>();
  function probe(kind: ProbeKind): Promise<boolean> {
    let pending = probing.get(kind);
    if (!pending) {
      pending = probeOnce(kind).finally(() => probing.delete(kind));
      probing.set(kind, pending);
    }
    return pending;
  }

  function markDown(): void {
    if (down || closed) return;
    down = true;
    const error = databaseUnavailable(new Error('the database server does not answer'));
    for (const entry of waiting) entry.abandon(error);
    waiting.clear();
    const again = () => {
      recheck = setTimeout(async () => {
        if (closed) return;
        if (await probe('connect')) down = false;
        else again();
      }, recheckMs);
      recheck.unref();
    };
    again();
  }

  /** Runs `start`; if it is still waiting after `suspectAfterMs` and a probe fails, it fails with 503. */
  function run<T>(kind: ProbeKind, start: () => Promise<T>, onAbandon: () => void): Promise<T> {
    if (down) return Promise.reject(databaseUnavailable(new Error('the database server does not answer')));
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const entry: Waiting = {
        abandon(error) {
          if (settled) return;
          settled = true;
          clearTimeout(suspect);
          onAbandon();
          reject(error);
        },
      };
      const suspect = setTimeout(() => {
        // After the I/O of this loop turn: an answer that waited behind a busy event loop is not a stall.
        setImmediate(() => {
          if (settled) return;
          void probe(kind).then((alive) => {
            if (!alive && !settled) markDown();
          });
        });
      }, suspectAfterMs);
      suspect.unref();
      waiting.add(entry);
      start().then(
        (value) => {
          waiting.delete(entry);
          if (settled) return;
          settled = true;
          clearTimeout(suspect);
          resolve(value);
        },
        (error: unknown) => {
          waiting.delete(entry);
          if (settled) return;
          settled = true;
          clearTimeout(suspect);
          reject(asDatabaseError(error));
        },
      );
    });
  }

  return {
    get down() {
      return down;
    },
    guard(inner) {
      return {
        async connect() {
          let gaveUp = false;
          const client = await run(
            'connect',
            () =>
              inner.connect().then((connected) => {
                // Connected after the guard gave up: nobody holds it, so it goes back discarded.
                if (gaveUp) connected.release(new Error('abandoned'));
                return connected;
              }),
            () => {
              gaveUp = true;
            },
          );
          // A session that failed a query for want of the server is never reused: it may still hold
          // session state (an advisory lock, an open transaction) the caller believes gone.
          let broken = false;
          const query = ((text: unknown, values?: readonly unknown[]) => {
            // A cursor (Kysely's stream()) is read in pages by its owner: not guarded here.
            if (typeof text !== 'string') return client.query(text as never);
            return run(
              'query',
              () => client.query(text, values ?? []),
              () => {
                broken = true;
              },
            ).catch((error: unknown) => {
              if (isAppError(error) && error.code === 'service_unavailable') broken = true;
              throw error;
            });
          }) as PostgresPoolClient['query'];
          return {
            query,
            release: () => client.release(broken ? new Error('the database server stopped answering') : undefined),
          };
        },
        end: () => inner.end(),
      };
    },
    close() {
      closed = true;
      clearTimeout(recheck);
      dropProbeClient();
    },
  };
}
