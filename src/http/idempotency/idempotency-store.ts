import { sql } from 'kysely';
import type { Database } from '../../db/connect.ts';

/** How long a key remembers its answer (Stripe's window). */
export const idempotencyWindowMs = 24 * 60 * 60 * 1000;

/**
 * A request still `running` this long after it claimed its key is taken to be lost (its process died,
 * or it never answered): the same request may claim the key again. Longer than any create takes
 * (the chain reads of a wallet or a sponsorship time out well before).
 */
export const abandonedAfterMs = 60_000;

/** Seals stored answers at rest (they hold a created API key or signing secret): the webhooks' SecretBox. */
export interface AnswerBox {
  seal(plain: string, binding: string): string;
  open(sealed: string, binding: string): string;
}

/** Who owns a key (`account:<id>`, `user:<id>`, `admin:<token hash>`), the key, and the request it was first used with. */
export interface KeyClaim {
  owner: string;
  key: string;
  fingerprint: string;
}

export type ClaimOutcome =
  | { kind: 'claimed' }
  | { kind: 'running' }
  | { kind: 'mismatch' }
  | { kind: 'done'; status: number; body: string };

export interface IdempotencyStore {
  /** Takes the key for this request, or says why not: its answer exists, it is running, or it was another request's. */
  claim(claim: KeyClaim): Promise<ClaimOutcome>;
  /** Keeps the answer of the request that holds the key. */
  finish(claim: KeyClaim, status: number, body: string): Promise<void>;
  /** Frees the key (the request failed on our side): the next attempt runs again. */
  release(claim: KeyClaim): Promise<void>;
}

interface IdempotencyKeyTable {
  owner: string;
  key: string;
  request_hash: string;
  state: 'running' | 'done';
  status: number | null;
  body: string | null;
  created_at: Date;
  updated_at: Date;
}

// The table is this module's alone: it is typed here rather than in db/tables.ts.
const keysOf = (db: Database) => db.withTables<{ idempotency_keys: IdempotencyKeyTable }>();
const bindingOf = (claim: KeyClaim) => `idempotency:${claim.owner}:${claim.key}`;

function openAnswer(box: AnswerBox, sealed: string, claim: KeyClaim): string {
  try {
    return box.open(sealed, bindingOf(claim));
  } catch (error) {
    throw new Error(
      'a stored Idempotency-Key answer cannot be decrypted: every API process needs the same encryption key (BLOCKYARD_ENCRYPTION_KEY)',
      { cause: error },
    );
  }
}

/** Idempotency keys in Postgres, so every API process of a deployment sees the same ones. */
export function createIdempotencyStore(deps: { db: Database; box: AnswerBox }): IdempotencyStore {
  const db = keysOf(deps.db);
  const { box } = deps;

  /**
   * One statement: a new key is inserted; an expired one, or a running one abandoned by the same
   * request, is taken over. Anything else is left as it is and read back.
   */
  async function take(claim: KeyClaim): Promise<boolean> {
    const taken = await sql<{ owner: string }>`
      insert into idempotency_keys (owner, key, request_hash, state)
      values (${claim.owner}, ${claim.key}, ${claim.fingerprint}, 'running')
      on conflict (owner, key) do update
        set request_hash = excluded.request_hash, state = 'running', status = null, body = null,
            created_at = now(), updated_at = now()
        where idempotency_keys.created_at < now() - ${idempotencyWindowMs} * interval '1 millisecond'
           or (idempotency_keys.state = 'running'
               and idempotency_keys.request_hash = excluded.request_hash
               and idempotency_keys.updated_at < now() - ${abandonedAfterMs} * interval '1 millisecond')
      returning owner`.execute(db);
    return taken.rows.length === 1;
  }

  return {
    async claim(claim) {
      // Twice at most: the row seen taken can be released (or swept) before it is read.
      for (let attempt = 0; attempt < 2; attempt++) {
        if (await take(claim)) return { kind: 'claimed' };
        const row = await db
          .selectFrom('idempotency_keys')
          .select(['request_hash', 'state', 'status', 'body'])
          .where('owner', '=', claim.owner)
          .where('key', '=', claim.key)
          .executeTakeFirst();
        if (!row) continue;
        if (row.request_hash !== claim.fingerprint) return { kind: 'mismatch' };
        if (row.state === 'running' || row.status === null || row.body === null) return { kind: 'running' };
        return { kind: 'done', status: row.status, body: openAnswer(box, row.body, claim) };
      }
      return { kind: 'running' };
    },

    async finish(claim, status, body) {
      await db
        .updateTable('idempotency_keys')
        .set({ state: 'done', status, body: box.seal(body, bindingOf(claim)), updated_at: sql<Date>`now()` })
        .where('owner', '=', claim.owner)
        .where('key', '=', claim.key)
        .where('request_hash', '=', claim.fingerprint)
        .where('state', '=', 'running')
        .execute();
    },

    async release(claim) {
      await db
        .deleteFrom('idempotency_keys')
        .where('owner', '=', claim.owner)
        .where('key', '=', claim.key)
        .where('request_hash', '=', claim.fingerprint)
        .where('state', '=', 'running')
        .execute();
    },
  };
}

/** Deletes the keys past their 24 h (the expired-rows sweeper's step); how many. */
export async function deleteExpiredIdempotencyKeys(db: Database, at: Date): Promise<number> {
  const deleted = await keysOf(db)
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', new Date(at.getTime() - idempotencyWindowMs))
    .executeTakeFirst();
  return Number(deleted.numDeletedRows);
}
