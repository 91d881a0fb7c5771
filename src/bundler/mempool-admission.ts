import { type Kysely, sql } from 'kysely';
import { preparedComment } from '../db/prepared-statements.ts';
import type { Tables } from '../db/tables.ts';

/**
 * A pending op's row as a send writes it (JSON members are objects; big numbers decimal strings). The
 * database function that writes it names these columns: a new member needs a migration replacing it.
 */
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
  | { kind: 'already-known' }
  /** Another op of the sender with this nonce was admitted while this one was validated (it was not there to replace). */
  | { kind: 'nonce-taken' };

/**
 * Puts a validated op into the mempool unless a pending op conflicts with it or its sender already
 * has `senderLimit` ops there. One call of the database function `bundler_admit_user_operation`
 * (migration 2026-12-05T1700), one round trip: it takes a transaction-level advisory lock on the
 * sender, so concurrent sends of one sender (on different nonce keys, or to other processes) are
 * counted one after another and cannot pass the limit together; then counts, reads conflicts, marks
 * the replaced op, inserts and counts the entities. The commit does not wait for the WAL flush (an
 * fsync: 2 ms p50, 9 ms p95 on the benchmark's VM, most of what a send waited for): the op survives any
 * restart of the service and a clean one of Postgres; only a crash of Postgres or of the machine in the
 * few hundred milliseconds before the WAL writer flushes can lose it (docs/bundler.md). Returns why
 * nothing was written, if it was not.
 */
export async function admitToMempool(db: Kysely<Tables>, admission: Admission): Promise<AdmissionRefusal | undefined> {
  const { row, replacing, conflictsWith, seenEntities, senderLimit } = admission;
  const lockKey = `${row.network}:${row.entry_point}:${row.sender.toLowerCase()}`;
  try {
    const { rows } = await sql<{
      pending: number;
      inserted: boolean;
      conflict_sender: string | null;
      conflict_factory: string | null;
      conflict_paymaster: string | null;
    }>`${sql.raw(admissionStatement)}select * from bundler_admit_user_operation(${lockKey}, ${JSON.stringify(row)}::jsonb,
      ${replacing ?? null}, ${conflictsWith ?? null}::text[], ${seenEntities}::text[], ${senderLimit}::int)`.execute(db);
    const found = rows[0]!;
    if (found.conflict_sender !== null)
      return {
        kind: 'conflict',
        conflict: { sender: found.conflict_sender, factory: found.conflict_factory, paymaster: found.conflict_paymaster },
      };
    if (found.pending >= senderLimit) return { kind: 'sender-limit', pending: found.pending };
    if (!found.inserted) return { kind: 'already-known' };
    return undefined;
  } catch (error) {
    // The function found the hash live only at its insert, and rolled everything back.
    if ((error as { code?: unknown }).code === alreadyKnownCode) return { kind: 'already-known' };
    // Two ops of one sender and nonce sent at once: both read no op to replace before their validation,
    // and the second insert meets the first's live row (the lock orders the inserts, not those reads).
    if (
      (error as { code?: unknown; constraint?: unknown }).code === uniqueViolation &&
      (error as { constraint?: unknown }).constraint === liveNonceIndex
    )
      return { kind: 'nonce-taken' };
    throw error;
  }
}

const alreadyKnownCode = 'BY001';
const uniqueViolation = '23505';
/** One live (pending or submitted) op per network, EntryPoint, sender and nonce. */
const liveNonceIndex = 'user_operations_live_idx';

const admissionStatement = preparedComment('mempool_admission_call');
