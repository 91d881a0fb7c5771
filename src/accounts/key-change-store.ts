import { sql, type Transaction, type UpdateObject } from 'kysely';
import type { Database } from '../db/connect.ts';
import type { ApiKeyEventRow, ApiKeyRow, NewApiKeyRow } from '../db/tables/accounts.ts';
import type { Tables } from '../db/tables.ts';
import type { Page } from './page.ts';

/** Every process LISTENs here and drops the key (its id is the payload) from its authentication cache. */
export const keyChangedChannel = 'blockyard_api_key_changed';

export type KeyAction = ApiKeyEventRow['action'];

/** Who made a change: the admin token, a dashboard user, or the command line. */
export type KeyActor = 'admin' | 'cli' | `user:${string}`;

export interface KeyEventInput {
  action: KeyAction;
  actor: KeyActor;
  details: Record<string, unknown>;
}

/** Why a change was not made: no such key (or another account's), or a revoked one. */
export type KeyChangeRefusal = 'not_found' | 'revoked';

export interface KeyChanges {
  name?: string;
  scopes?: string;
  restrictions?: string;
  limits?: string;
}

/**
 * The writes that change a key, each with its audit event in the same transaction and, for a change
 * other processes must see at once, a NOTIFY on `blockyard_api_key_changed` (Postgres delivers it on commit).
 */
export function createKeyChangeStore(db: Database) {
  return {
    insertKey: (row: NewApiKeyRow, event: KeyEventInput) => insertKey(db, row, event),
    /** Sets what is given; the event's details are built from the key before and after. */
    updateKey: (
      id: string,
      changes: KeyChanges,
      event: (before: ApiKeyRow, after: ApiKeyRow) => KeyEventInput,
      accountId?: string,
    ): Promise<ApiKeyRow | KeyChangeRefusal> => changeLiveKey(db, id, accountId, () => changes, event),
    rotateKey: (
      id: string,
      secret: { key_hash: string; prefix: string },
      graceS: number,
      event: (after: ApiKeyRow) => KeyEventInput,
      accountId?: string,
    ) => rotateKey(db, id, secret, graceS, event, accountId),
    revokeKey: (id: string, actor: KeyActor, accountId?: string) => revokeKey(db, id, actor, accountId),
    listKeyEvents: (id: string, page: Page, accountId?: string) => listKeyEvents(db, id, page, accountId),
  };
}

export type KeyChangeStore = ReturnType<typeof createKeyChangeStore>;

async function lockKey(trx: Transaction<Tables>, id: string, accountId: string | undefined) {
  let query = trx.selectFrom('api_keys').selectAll().where('id', '=', id).forUpdate();
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  return query.executeTakeFirst();
}

async function recordKeyEvent(trx: Transaction<Tables>, key: ApiKeyRow, event: KeyEventInput, notify: boolean) {
  await trx
    .insertInto('api_key_events')
    .values({
      key_id: key.id,
      account_id: key.account_id,
      action: event.action,
      actor: event.actor,
      details: JSON.stringify(event.details),
    })
    .execute();
  if (notify) await sql`select pg_notify(${keyChangedChannel}, ${key.id})`.execute(trx);
}

/** Locks a key that is not revoked, applies `set`, records the event and announces the change, in one transaction. */
function changeLiveKey(
  db: Database,
  id: string,
  accountId: string | undefined,
  set: (before: ApiKeyRow) => UpdateObject<Tables, 'api_keys'>,
  event: (before: ApiKeyRow, after: ApiKeyRow) => KeyEventInput,
): Promise<ApiKeyRow | KeyChangeRefusal> {
  return db.transaction().execute(async (trx) => {
    const before = await lockKey(trx, id, accountId);
    if (!before) return 'not_found';
    if (before.revoked_at) return 'revoked';
    const after = await trx
      .updateTable('api_keys')
      .set(set(before))
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordKeyEvent(trx, after, event(before, after), true);
    return after;
  });
}

async function insertKey(db: Database, row: NewApiKeyRow, event: KeyEventInput): Promise<ApiKeyRow> {
  return db.transaction().execute(async (trx) => {
    const key = await trx.insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow();
    await recordKeyEvent(trx, key, event, false);
    return key;
  });
}

/**
 * The new secret replaces the current one, which stays valid for `graceS` seconds by the database's
 * clock (every process compares against one clock's instant). A secret rotated out earlier is dropped.
 */
async function rotateKey(
  db: Database,
  id: string,
  secret: { key_hash: string; prefix: string },
  graceS: number,
  event: (after: ApiKeyRow) => KeyEventInput,
  accountId?: string,
): Promise<ApiKeyRow | KeyChangeRefusal> {
  const rotation = (before: ApiKeyRow) => ({
    previous_key_hash: before.key_hash,
    previous_key_expires_at: sql<Date>`now() + make_interval(secs => ${graceS})`,
    key_hash: secret.key_hash,
    prefix: secret.prefix,
  });
  return changeLiveKey(db, id, accountId, rotation, (_before, after) => event(after));
}

/** Marks the key revoked (once: revoking again keeps the first time and records nothing). */
async function revokeKey(db: Database, id: string, actor: KeyActor, accountId?: string): Promise<ApiKeyRow | 'not_found'> {
  return db.transaction().execute(async (trx) => {
    const before = await lockKey(trx, id, accountId);
    if (!before) return 'not_found';
    if (before.revoked_at) return before;
    const after = await trx
      .updateTable('api_keys')
      .set({ revoked_at: sql<Date>`now()` })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordKeyEvent(trx, after, { action: 'revoke', actor, details: {} }, true);
    return after;
  });
}

/** The key's events, newest first; undefined when there is no such key (or it is another account's). */
async function listKeyEvents(
  db: Database,
  id: string,
  page: Page,
  accountId?: string,
): Promise<{ rows: ApiKeyEventRow[]; total: number } | undefined> {
  let keyQuery = db.selectFrom('api_keys').select('id').where('id', '=', id);
  if (accountId !== undefined) keyQuery = keyQuery.where('account_id', '=', accountId);
  const [key, rows, count] = await Promise.all([
    keyQuery.executeTakeFirst(),
    db
      .selectFrom('api_key_events')
      .selectAll()
      .where('key_id', '=', id)
      .orderBy('id', 'desc')
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
    db
      .selectFrom('api_key_events')
      .where('key_id', '=', id)
      .select((eb) => eb.fn.countAll<string>().as('total'))
      .executeTakeFirstOrThrow(),
  ]);
  if (!key) return undefined;
  return { rows, total: Number(count.total) };
}
