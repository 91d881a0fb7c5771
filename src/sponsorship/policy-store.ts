import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import type { Selectable } from 'kysely';
import type { Database } from '../db/connect.ts';
import type { GasPoliciesTable } from '../db/tables/gas.ts';
import { formatPolicyRules, type PolicyRules } from './policy-rules.ts';

export type PolicyStatus = GasPoliciesTable['status'];

/** A stored policy (deleted ones are never returned), its rules as `parsePolicyRules` made them. */
export type GasPolicyRow = Omit<Selectable<GasPoliciesTable>, 'rules'> & { rules: PolicyRules };

/** The gas policy record of the spec (section 2), plus network and updated_at. */
export interface GasPolicyRecord {
  id: string;
  name: string;
  chain: string;
  network: string;
  rules: Record<string, unknown>;
  status: PolicyStatus;
  created_at: string;
  updated_at: string;
  /** For a policy with call rules: whether its network's node traces them (trace-capability.ts). */
  call_rules_enforcement?: string;
}

export interface NewPolicy {
  accountId: string;
  name: string;
  chain: string;
  /** The network's name within the chain ('devnet'). */
  network: string;
  rules: PolicyRules;
}

export interface PolicyChanges {
  name?: string;
  /** Replaces the whole set. */
  rules?: PolicyRules;
  status?: PolicyStatus;
}

export function newPolicyId(): string {
  return `gp_${base58.encode(randomBytes(16))}`;
}

export async function createPolicy(db: Database, policy: NewPolicy): Promise<GasPolicyRow> {
  const row = await db
    .insertInto('gas_policies')
    .values({
      id: newPolicyId(),
      account_id: policy.accountId,
      name: policy.name,
      chain: policy.chain,
      network: policy.network,
      rules: JSON.stringify(policy.rules),
      status: 'active',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return row as GasPolicyRow;
}

/** The account's policy, or undefined when it is another account's, deleted, or never existed. */
export async function getPolicy(db: Database, accountId: string, id: string): Promise<GasPolicyRow | undefined> {
  const row = await db
    .selectFrom('gas_policies')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row as GasPolicyRow | undefined;
}

/** The account's policies, newest first; `page` from 1. */
export async function listPolicies(
  db: Database,
  accountId: string,
  query: { page: number; limit: number; chain?: string; status?: PolicyStatus },
): Promise<{ data: GasPolicyRow[]; page: number; total: number }> {
  let base = db.selectFrom('gas_policies').where('account_id', '=', accountId).where('deleted_at', 'is', null);
  if (query.chain !== undefined) base = base.where('chain', '=', query.chain);
  if (query.status !== undefined) base = base.where('status', '=', query.status);
  const [rows, count] = await Promise.all([
    base
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .offset((query.page - 1) * query.limit)
      .limit(query.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { data: rows as GasPolicyRow[], page: query.page, total: Number(count.total) };
}

/** Applies the changes to the account's policy; undefined when it has no such policy. */
export async function updatePolicy(
  db: Database,
  accountId: string,
  id: string,
  changes: PolicyChanges,
): Promise<GasPolicyRow | undefined> {
  const set: { name?: string; rules?: string; status?: PolicyStatus } = {};
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.rules !== undefined) set.rules = JSON.stringify(changes.rules);
  if (changes.status !== undefined) set.status = changes.status;
  if (Object.keys(set).length === 0) return getPolicy(db, accountId, id);
  const row = await db
    .updateTable('gas_policies')
    .set({ ...set, updated_at: new Date() })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  return row as GasPolicyRow | undefined;
}

/** Marks the account's policy deleted (see the migration for why the row stays); false when it has no such policy. */
export async function deletePolicy(db: Database, accountId: string, id: string): Promise<boolean> {
  const now = new Date();
  const result = await db
    .updateTable('gas_policies')
    .set({ deleted_at: now, updated_at: now })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The record the API shows; `callRulesEnforcement` only for a policy that names contracts or methods. */
export function toPolicyRecord(row: GasPolicyRow, callRulesEnforcement?: string): GasPolicyRecord {
  return {
    id: row.id,
    name: row.name,
    chain: row.chain,
    network: row.network,
    rules: formatPolicyRules(row.rules),
    status: row.status,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    ...(callRulesEnforcement === undefined ? {} : { call_rules_enforcement: callRulesEnforcement }),
  };
}
