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
   * ERC-7562's rules between ops (STO-040/041), when the validation was traced: lower-case addresses
   * that may not be another pending op's sender (the op's entities and the contracts whose storage
   * its validation touched). Undefined: not checked.
   */
  conflictsWith?: readonly string[];
  /** Entities (factory, paymaster) whose ERC-7562 "seen" count the op adds to. */
  seenEntities: readonly string[];
  /** The hash of the pending op of the same sender and nonce that this one replaces. */
  replacing?: string;
}

/**
 * Puts a validated op into the mempool unless a pending op conflicts with it, in one statement (one
 * round trip: the conflict read, the insert and the entities' counts) and without waiting for the
 * commit's WAL flush (an fsync: 2 ms p50, 9 ms p95 on the benchmark's VM, most of what a send waited
 * for). The op survives any restart of the service and a clean one of Postgres; only a crash of
 * Postgres or of the machine in the few hundred milliseconds before the WAL writer flushes can lose
 * it (docs/bundler.md). A replacement runs in a transaction: the op it replaces leaves the live set
 * before the new one enters it (data-modifying CTEs run in no set order). Returns the conflict found,
 * if any (nothing is written then).
 */
export async function admitToMempool(db: Kysely<Tables>, admission: Admission): Promise<MempoolConflict | undefined> {
  const { replacing } = admission;
  if (replacing === undefined) return admit(db, admission);
  return db
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable('user_operations')
        .set({ status: 'replaced', reason: `replaced by ${admission.row.hash}`, updated_at: new Date() })
        .where('hash', '=', replacing)
        .where('status', '=', 'pending')
        .execute();
      const conflict = await admit(trx, admission);
      if (conflict) throw new ConflictFound(conflict);
      return undefined;
    })
    .catch((error: unknown) => {
      if (error instanceof ConflictFound) return error.conflict;
      throw error;
    });
}

class ConflictFound extends Error {
  constructor(readonly conflict: MempoolConflict) {
    super('mempool conflict');
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
] as const satisfies readonly (keyof NewMempoolRow)[];

const admissionStatement = preparedComment('mempool_admission');

async function admit(db: Kysely<Tables>, { row, conflictsWith, seenEntities }: Admission): Promise<MempoolConflict | undefined> {
  const self = row.sender.toLowerCase();
  const columns = sql.join(rowColumns.map((column) => sql.ref(column)));
  const { rows } = await sql<MempoolConflict>`${sql.raw(admissionStatement)}
    with conflict as (
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
      where not exists (select from conflict)
      on conflict (hash) do nothing
    ),
    counted as (
      insert into bundler_reputation (network, address, ops_seen, ops_included)
      select ${row.network}, address, 1, 0 from unnest(${seenEntities}::text[]) as address
      where not exists (select from conflict)
      on conflict (network, address) do update set ops_seen = bundler_reputation.ops_seen + 1, updated_at = now()
    )
    select sender, factory, paymaster from conflict`.execute(db);
  return rows[0];
}
