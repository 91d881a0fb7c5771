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
 * one probe: nothing is abandoned while the server answers probes, or, on a loaded host where the
 * probe itself is slow, while it answers other queries.
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
  /** Down, or a query has waited past `suspectAfterMs` and the server is being probed. */
  readonly suspect: boolean;
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
  const state: GuardState = {
    url,
    suspectAfterMs,
    probeTimeoutMs,
    recheckMs,
    waiting: new Set(),
    probing: new Map(),
    down: false,
    closed: false,
    lastQueryAnswerAt: 0,
    recheck: undefined,
    probeClient: undefined,
    opening: new Set(),
  };
  return {
    get down() {
      return state.down;
    },
    get suspect() {
      return state.down || state.probing.size > 0;
    },
    guard: (inner) => guardPool(state, inner),
    close: () => closeGuard(state),
  };
}

interface GuardState {
  readonly url: string;
  readonly suspectAfterMs: number;
  readonly probeTimeoutMs: number;
  readonly recheckMs: number;
  readonly waiting: Set<Waiting>;
  readonly probing: Map<ProbeKind, Promise<boolean>>;
  down: boolean;
  closed: boolean;
  recheck: NodeJS.Timeout | undefined;
  /** When a guarded query last got its answer (performance.now()): a server answering queries is not stalled. */
  lastQueryAnswerAt: number;
  /** Kept between probes: a round trip on it costs less than a new session on a busy server. */
  probeClient: pg.Client | undefined;
  /** Probe sessions still opening: closed with the guard, or one would keep the process alive. */
  readonly opening: Set<pg.Client>;
}

function dropProbeClient(state: GuardState): void {
  state.probeClient?.end().catch(() => undefined);
  state.probeClient = undefined;
}

/**
 * `query`: a round trip on the kept connection (a stalled query: is the server answering at all?).
 * `connect`: a new session (a stalled connect: is the server accepting sessions? A stopped
 * postmaster leaves the open sessions answering while new ones hang).
 */
async function probeOnce(state: GuardState, kind: ProbeKind): Promise<boolean> {
  const startedAt = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    // After this loop turn's I/O: an answer that waited behind a busy event loop still counts.
    timer = setTimeout(() => setImmediate(() => resolve(false)), state.probeTimeoutMs);
  });
  let fresh: pg.Client | undefined;
  const answered = (async () => {
    if (kind === 'connect' || !state.probeClient) {
      const client = new pg.Client({ connectionString: state.url, keepAlive: true });
      client.on('error', () => {
        if (state.probeClient === client) state.probeClient = undefined;
        client.end().catch(() => undefined);
      });
      fresh = client;
      state.opening.add(client);
      try {
        await client.connect();
        await client.query('select 1');
      } finally {
        state.opening.delete(client);
      }
      if (!state.closed && (kind === 'query' || !state.probeClient)) state.probeClient = client;
      else client.end().catch(() => undefined);
      fresh = undefined;
      return true as const;
    }
    await state.probeClient.query('select 1');
    return true as const;
  })().catch(() => false as const);
  const probeAnswered = await Promise.race([answered, timedOut]);
  clearTimeout(timer);
  if (!probeAnswered) {
    fresh?.end().catch(() => undefined);
    dropProbeClient(state);
  }
  // Queries that got their answers meanwhile: the server answers, only the probe was slow (a busy
  // host). Not so for connects: a stopped postmaster leaves open sessions answering.
  return probeAnswered || (kind === 'query' && state.lastQueryAnswerAt > startedAt);
}

/** One probe of a kind at a time: a burst of stalled queries shares it. */
function probe(state: GuardState, kind: ProbeKind): Promise<boolean> {
  if (state.closed) return Promise.resolve(false);
  let pending = state.probing.get(kind);
  if (!pending) {
    pending = probeOnce(state, kind).finally(() => state.probing.delete(kind));
    state.probing.set(kind, pending);
  }
  return pending;
}

function markDown(state: GuardState): void {
  if (state.down || state.closed) return;
  state.down = true;
  const error = databaseUnavailable(new Error('the database server does not answer'));
  for (const entry of state.waiting) entry.abandon(error);
  state.waiting.clear();
  scheduleRecheck(state);
}

/** Probes for a new session every `recheckMs` until one answers: then the database is up again. */
function scheduleRecheck(state: GuardState): void {
  state.recheck = setTimeout(async () => {
    if (state.closed) return;
    if (await probe(state, 'connect')) state.down = false;
    else scheduleRecheck(state);
  }, state.recheckMs);
  state.recheck.unref();
}

/** Runs `start`; if it is still waiting after `suspectAfterMs` and a probe fails, it fails with 503. */
function run<T>(state: GuardState, kind: ProbeKind, start: () => Promise<T>, onAbandon: () => void): Promise<T> {
  if (state.down) return Promise.reject(databaseUnavailable(new Error('the database server does not answer')));
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
        void probe(state, kind).then((alive) => {
          if (!alive && !settled) markDown(state);
        });
      });
    }, state.suspectAfterMs);
    suspect.unref();
    state.waiting.add(entry);
    start().then(
      (value) => {
        state.waiting.delete(entry);
        if (kind === 'query') state.lastQueryAnswerAt = performance.now();
        if (settled) return;
        settled = true;
        clearTimeout(suspect);
        resolve(value);
      },
      (error: unknown) => {
        state.waiting.delete(entry);
        if (settled) return;
        settled = true;
        clearTimeout(suspect);
        reject(asDatabaseError(error));
      },
    );
  });
}

function guardPool(state: GuardState, inner: GuardablePool): PostgresPool {
  return {
    connect: () => connectGuarded(state, inner),
    end: () => inner.end(),
  };
}

async function connectGuarded(state: GuardState, inner: GuardablePool): Promise<GuardedClient> {
  let gaveUp = false;
  const client = await run(
    state,
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
  return guardClient(state, client);
}

/** `client` with every query guarded, released discarded once a query failed for want of the server. */
function guardClient(state: GuardState, client: GuardedClient): GuardedClient {
  // A session that failed a query for want of the server is never reused: it may still hold
  // session state (an advisory lock, an open transaction) the caller believes gone.
  let broken = false;
  const query = ((text: unknown, values?: readonly unknown[]) => {
    // A cursor (Kysely's stream()) is read in pages by its owner: not guarded here.
    if (typeof text !== 'string') return client.query(text as never);
    return run(
      state,
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
}

function closeGuard(state: GuardState): void {
  state.closed = true;
  clearTimeout(state.recheck);
  dropProbeClient(state);
  for (const client of state.opening) client.end().catch(() => undefined);
  state.opening.clear();
}
