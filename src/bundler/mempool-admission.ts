import { type Kysely, sql } from 'kysely';
import { preparedComment } from '../db/prepared-statements.ts';
import type { Tables } from '../db/tables.ts';

/** A pending op's row as a send writes it (JSON members are objects; big numbers decimal strings). */
export interface NewMempoolRow {
  hash: string;
  network: string;
  entry_point: string;
  entry_point_version: '0.6' | '0.7' | '0.8';
  sender: string;
  nonce: string;
  factory: string | null;
  paymaster: string | null;
  op: unknown;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  status: 'pending';
  code_hashes: unknown;
  storage_owners: readonly string[] | null;
}

/** A pending or submitted op of another sender that the new one may not share a bundle with. */
export interface MempoolConflict {
  sender: string;
  factory: string | null;
  paymaster: string | null;
}

export interface Admission {
  row: NewMempoolRow;
  /**
   * ERC-7562's STO-040, when the validation was traced: lower-case addresses that may not be another
   * pending op's sender (the op's entities). Undefined: not checked. (STO-041, the storage it touched,
   * is the bundle's rule: bundle-storage-conflicts.ts.)
   */
  conflictsWith?: readonly string[];
  /** Entities (factory, paymaster) whose ERC-7562 "seen" count the op adds to. */
  seenEntities: readonly string[];
  /** The hash of the pending op of the same sender and nonce that this one replaces. */
  replacing?: string;
  /** The most ops the sender may have in the mempool of this EntryPoint (pending or submitted) once this one is in. */
  senderLimit: number;
}

/** Why an op was not written: a conflict with a pending op, the sender's limit, or the same op already there. */
export type AdmissionRefusal =
  | { kind: 'conflict'; conflict: MempoolConflict }
  | { kind: 'sender-limit'; pending: number }
  | { kind: 'already-known' };

/**
 * Puts a validated op into the mempool unless a pending op conflicts with it or its sender already
 * has `senderLimit` ops there. The sender's ops are counted under a transaction-level advisory lock
 * on the sender, so concurrent sends of one sender (on different nonce keys, or to other processes)
 * are counted one after another and cannot pass the limit together; the count, the conflict read,
 * the insert and the entities' counts are then one statement. The commit does not wait for the WAL
 * flush (an fsync: 2 ms p50, 9 ms p95 on the benchmark's VM, most of what a send waited for): the op
 * survives any restart of the service and a clean one of Postgres; only a crash of Postgres or of
 * the machine in the few hundred milliseconds before the WAL writer flushes can lose it
 * (docs/bundler.md). A replacement's old op leaves the live set in the same transaction, before the
 * new one enters it. Returns why nothing was written, if it was not.
 */
export async function admitToMempool(db: Kysely<Tables>, admission: Admission): Promise<AdmissionRefusal | undefined> {
  const { replacing, row } = admission;
  return db
    .transaction()
    .execute(async (trx) => {
      // The two-key form: a lock space apart from the one-key locks of the leases.
      await sql`${sql.raw(senderLockStatement)}select pg_advisory_xact_lock(hashtext('blockyard-bundler-sender'), hashtext(${`${row.network}:${row.entry_point}:${row.sender.toLowerCase()}`}))`.execute(
        trx,
      );
      if (replacing !== undefined) {
        const replaced = await trx
          .updateTable('user_operations')
          .set({ status: 'replaced', reason: `replaced by ${row.hash}`, updated_at: new Date() })
          .where('hash', '=', replacing)
          // A submitted one is in a bundle on its way: the bundle swaps it for this one (bundle-swap.ts).
          .where('status', 'in', ['pending', 'submitted'])
          .returning(['factory', 'paymaster', 'sender'])
          .executeTakeFirst();
        // The replaced op no longer counts as seen for its entities (and its sender, when staked: it has
        // counters then): the new one counts instead (ERC-7562 reputation).
        const entities = [replaced?.factory, replaced?.paymaster, replaced?.sender.toLowerCase()].filter(
          (address): address is string => !!address,
        );
        if (entities.length > 0)
          await sql`update bundler_reputation set ops_seen = greatest(ops_seen - 1, 0), updated_at = now()
            where network = ${row.network} and address = any(${entities}::text[])`.execute(trx);
      }
      const refusal = await admit(trx, admission);
      // Rolls back the replacement too.
      if (refusal) throw new NotAdmitted(refusal);
      return undefined;
    })
    .catch((error: unknown) => {
      if (error instanceof NotAdmitted) return error.refusal;
      throw error;
    });
}

class NotAdmitted extends Error {
  constructor(readonly refusal: AdmissionRefusal) {
    super('not admitted to the mempool');
  }
}

const rowColumns = [
  'hash',
  'network',
  'entry_point',
  'entry_point_version',
  'sender',
  'nonce',
  'factory',
  'paymaster',
  'op',
  'max_fee_per_gas',
  'max_priority_fee_per_gas',
  'status',
  'code_hashes',
  'storage_owners',
] as const satisfies readonly (keyof NewMempoolRow)[];

const senderLockStatement = preparedComment('mempool_sender_lock');
const admissionStatement = preparedComment('mempool_admission');

/**
 * The admission statement. An op whose hash is in the table as failed or replaced (dropped, then
 * sent again) takes its row over as a new pending op; a live or included one is not written
 * (already known).
 */
async function admit(
  db: Kysely<Tables>,
  { row, conflictsWith, seenEntities, senderLimit }: Admission,
): Promise<AdmissionRefusal | undefined> {
  const self = row.sender.toLowerCase();
  const columns = sql.join(rowColumns.map((column) => sql.ref(column)));
  const retaken = sql.join(rowColumns.map((column) => sql`${sql.ref(column)} = excluded.${sql.ref(column)}`));
  const { rows } = await sql<
    MempoolConflict & { pending: number; inserted: boolean; has_conflict: boolean }
  >`${sql.raw(admissionStatement)}
    with sender_ops as (
      select count(*)::int as pending from user_operations
      where network = ${row.network} and entry_point = ${row.entry_point} and sender = ${row.sender}
        and status in ('pending', 'submitted')
    ),
    conflict as (
      select sender, factory, paymaster from user_operations
      where ${conflictsWith !== undefined}
        and network = ${row.network}
        and status in ('pending', 'submitted')
        and lower(sender) <> ${self}
        and (factory = ${self} or paymaster = ${self} or lower(sender) = any(${conflictsWith ?? []}::text[]))
      limit 1
    ),
    durability as (
      select set_config('synchronous_commit', 'off', true)
    ),
    inserted as (
      insert into user_operations (${columns})
      select ${columns} from jsonb_populate_record(null::user_operations, ${JSON.stringify(row)}::jsonb), durability
      where not exists (select from conflict) and (select pending from sender_ops) < ${senderLimit}
      on conflict (hash) do update set ${retaken}, reason = null, tx_hash = null, block_number = null,
        block_hash = null, receipt = null, created_at = now(), updated_at = now()
      where user_operations.status in ('failed', 'replaced')
      returning hash
    ),
    counted as (
      insert into bundler_reputation (network, address, ops_seen, ops_included)
      select ${row.network}, address, 1, 0 from unnest(${seenEntities}::text[]) as address
      where exists (select from inserted)
      on conflict (network, address) do update set ops_seen = bundler_reputation.ops_seen + 1, updated_at = now()
    )
    select (select pending from sender_ops) as pending, exists (select from inserted) as inserted,
      exists (select from conflict) as has_conflict, conflict.sender, conflict.factory, conflict.paymaster
    from (select 1) as one left join conflict on true`.execute(db);
  const found = rows[0]!;
  if (found.has_conflict)
    return { kind: 'conflict', conflict: { sender: found.sender, factory: found.factory, paymaster: found.paymaster } };
  if (found.pending >= senderLimit) return { kind: 'sender-limit', pending: found.pending };
  if (!found.inserted) return { kind: 'already-known' };
  return undefined;
}
