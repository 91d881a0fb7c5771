import { sql } from 'kysely';
import type { UsedTokenStore } from '../auth/restrictions/signed-requests.ts';
import type { Database } from '../db/connect.ts';

/** Expired ids are swept at most this often (by the request that finds the last sweep this old). */
const sweepEveryMs = 60_000;

/**
 * Single-use signed requests' ids in Postgres, which every process shares (with or without Redis): a
 * token is taken by the insert that creates its row, so two processes given the same token at once
 * take it once between them.
 */
export function createUsedJwtStore(db: Database, now: () => number = Date.now): UsedTokenStore {
  let sweptAt = now();
  return {
    async firstUse(keyId, jti, expiresAtMs) {
      if (now() - sweptAt >= sweepEveryMs) {
        sweptAt = now();
        void sql`delete from used_jwt_ids where expires_at < now()`.execute(db).catch(() => undefined);
      }
      const inserted = await db
        .insertInto('used_jwt_ids')
        .values({ key_id: keyId, jti, expires_at: new Date(expiresAtMs) })
        .onConflict((conflict) => conflict.columns(['key_id', 'jti']).doNothing())
        .returning('jti')
        .executeTakeFirst();
      return inserted !== undefined;
    },
  };
}
