import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { GasSponsorshipRow } from '../db/tables/gas.ts';
import type { Tables } from '../db/tables.ts';
import type { Plan } from '../limits/plans.ts';
import type { AccountSponsorshipUsage } from './operator-caps.ts';
import type { PolicyUsage } from './policy-check.ts';
import { parseUsd, usdString } from './usd.ts';

export interface NewSponsorship {
  readonly policyId: string;
  readonly accountId: string;
  readonly network: string;
  readonly entryPoint: string;
  readonly sender: string;
  readonly userOpHash: string;
  readonly maxCostWei: bigint;
  readonly reservedUsdPico: bigint;
  readonly validUntil: Date;
}

/** A sponsorship's cost as the caps count it: the actual cost once settled, else the reserved maximum. */
const countedUsd = sql<string>`case when status = 'settled' then actual_usd else reserved_usd end`;

/** The account as the operator caps read it: its plan, its limit overrides and what it has had sponsored. */
export interface AccountSponsorshipState extends AccountSponsorshipUsage {
  readonly plan: Plan;
  readonly limits: unknown;
}

/**
 * Reserves an op's most possible cost against its policy and its account, or returns why one refuses it.
 * One sponsor call per account at a time, then per policy (transaction-scoped advisory locks, always in
 * that order): the usage read and the reservation written cannot interleave with another call's, so
 * concurrent calls never overspend a policy's cap or the operator's cap on the account.
 */
export async function reserveSponsorship<Refusal>(
  db: Kysely<Tables>,
  sponsorship: NewSponsorship,
  decide: (usage: PolicyUsage, account: AccountSponsorshipState) => Refusal | undefined,
  rateWindowS: number,
): Promise<{ reserved: true; id: string } | { reserved: false; refusal: Refusal }> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext(${`gas_account:${sponsorship.accountId}`}))`.execute(trx);
    await sql`select pg_advisory_xact_lock(hashtext(${`gas_policy:${sponsorship.policyId}`}))`.execute(trx);
    const sender = sponsorship.sender.toLowerCase();
    const userOpHash = sponsorship.userOpHash.toLowerCase();
    // The same op signed again (a retried call within its signature's second) has the same hash: it can
    // land once, and the settler settles every row of its hash, so it is counted once.
    const repeat = await trx
      .selectFrom('gas_sponsorships')
      .select('id')
      .where('policy_id', '=', sponsorship.policyId)
      .where('user_op_hash', '=', userOpHash)
      .where('status', '<>', 'released')
      .executeTakeFirst();
    if (repeat) return { reserved: true, id: repeat.id };
    const row = await policyUsageRow(trx, sponsorship.policyId, sender, rateWindowS);
    const account = await accountState(trx, sponsorship.accountId);
    const refusal = decide(
      {
        usdPico: parseUsd(row.usd),
        ops: Number(row.ops),
        senderUsdPico: parseUsd(row.sender_usd),
        senderOps: Number(row.sender_ops),
        senderOpsToday: Number(row.sender_today),
        opsInWindow: Number(row.in_window),
      },
      account,
    );
    if (refusal !== undefined) return { reserved: false, refusal };
    const id = `sp_${randomBytes(12).toString('hex')}`;
    await trx
      .insertInto('gas_sponsorships')
      .values({
        id,
        policy_id: sponsorship.policyId,
        account_id: sponsorship.accountId,
        network: sponsorship.network,
        entry_point: sponsorship.entryPoint.toLowerCase(),
        sender,
        user_op_hash: userOpHash,
        max_cost_wei: sponsorship.maxCostWei.toString(),
        reserved_usd: usdString(sponsorship.reservedUsdPico),
        status: 'reserved',
        valid_until: sponsorship.validUntil,
      })
      .execute();
    return { reserved: true, id };
  });
}

const utcDayStart = sql`date_trunc('day', now() at time zone 'utc') at time zone 'utc'`;

async function policyUsageRow(trx: Kysely<Tables>, policyId: string, sender: string, rateWindowS: number) {
  return trx
    .selectFrom('gas_sponsorships')
    .select([
      sql<string>`coalesce(sum(${countedUsd}) filter (where status <> 'released'), 0)`.as('usd'),
      sql<string>`count(*) filter (where status <> 'released')`.as('ops'),
      sql<string>`coalesce(sum(${countedUsd}) filter (where status <> 'released' and sender = ${sender}), 0)`.as('sender_usd'),
      sql<string>`count(*) filter (where status <> 'released' and sender = ${sender})`.as('sender_ops'),
      sql<string>`count(*) filter (where status <> 'released' and sender = ${sender} and created_at >= ${utcDayStart})`.as(
        'sender_today',
      ),
      sql<string>`count(*) filter (where created_at > now() - make_interval(secs => ${rateWindowS}))`.as('in_window'),
    ])
    .where('policy_id', '=', policyId)
    .executeTakeFirstOrThrow();
}

/** An account's plan, limit overrides and sponsored USD (in total and today), across all its policies. */
export async function accountState(db: Kysely<Tables>, accountId: string): Promise<AccountSponsorshipState> {
  const [account, usage] = await Promise.all([
    db.selectFrom('accounts').select(['plan', 'limits']).where('id', '=', accountId).executeTakeFirst(),
    db
      .selectFrom('gas_sponsorships')
      .select([
        sql<string>`coalesce(sum(${countedUsd}), 0)`.as('usd'),
        sql<string>`coalesce(sum(${countedUsd}) filter (where created_at >= ${utcDayStart}), 0)`.as('today'),
      ])
      .where('account_id', '=', accountId)
      .where('status', '<>', 'released')
      .executeTakeFirstOrThrow(),
  ]);
  return {
    // An account deleted under a live key is held to the smallest plan.
    plan: account?.plan ?? 'free',
    limits: account?.limits ?? {},
    usdPico: parseUsd(usage.usd),
    todayUsdPico: parseUsd(usage.today),
  };
}

/** Reserved (not settled or released) sponsorships' most possible cost on one paymaster's network and EntryPoint. */
export async function outstandingMaxCostWei(db: Kysely<Tables>, network: string, entryPoint: string): Promise<bigint> {
  const row = await db
    .selectFrom('gas_sponsorships')
    .select(sql<string>`coalesce(sum(max_cost_wei), 0)`.as('wei'))
    .where('network', '=', network)
    .where('entry_point', '=', entryPoint.toLowerCase())
    .where('status', '=', 'reserved')
    .executeTakeFirstOrThrow();
  return BigInt(row.wei);
}

export async function openSponsorships(db: Kysely<Tables>, network: string, limit = 500): Promise<GasSponsorshipRow[]> {
  return db
    .selectFrom('gas_sponsorships')
    .selectAll()
    .where('network', '=', network)
    .where('status', '=', 'reserved')
    .orderBy('valid_until')
    .limit(limit)
    .execute();
}

export async function settleSponsorship(
  db: Kysely<Tables>,
  id: string,
  outcome: { actualCostWei: bigint; actualUsdPico: bigint } | 'released',
): Promise<void> {
  await db
    .updateTable('gas_sponsorships')
    .set(
      outcome === 'released'
        ? { status: 'released', settled_at: new Date() }
        : {
            status: 'settled',
            actual_cost_wei: outcome.actualCostWei.toString(),
            actual_usd: usdString(outcome.actualUsdPico),
            settled_at: new Date(),
          },
    )
    .where('id', '=', id)
    .where('status', '=', 'reserved')
    .execute();
}

export interface PolicyUsageReport {
  readonly ops: number;
  readonly sponsoredUsd: string;
  readonly settledUsd: string;
  readonly reservedUsd: string;
  readonly bySender: { sender: string; ops: number; usd: string }[];
  readonly byDay: { day: string; ops: number; usd: string }[];
}

/** What a policy sponsored: ops and USD (settled at their actual cost, open reservations at their maximum), per sender and per UTC day. */
export async function policyUsage(db: Kysely<Tables>, policyId: string): Promise<PolicyUsageReport> {
  const open = db.selectFrom('gas_sponsorships').where('policy_id', '=', policyId).where('status', '<>', 'released');
  const [total, bySender, byDay] = await Promise.all([
    open
      .select([
        sql<string>`count(*)`.as('ops'),
        sql<string>`coalesce(sum(${countedUsd}), 0)`.as('usd'),
        sql<string>`coalesce(sum(actual_usd) filter (where status = 'settled'), 0)`.as('settled'),
        sql<string>`coalesce(sum(reserved_usd) filter (where status = 'reserved'), 0)`.as('reserved'),
      ])
      .executeTakeFirstOrThrow(),
    open
      .select(['sender', sql<string>`count(*)`.as('ops'), sql<string>`coalesce(sum(${countedUsd}), 0)`.as('usd')])
      .groupBy('sender')
      .orderBy(sql`sum(${countedUsd})`, 'desc')
      .limit(100)
      .execute(),
    open
      .select([
        sql<string>`to_char(created_at at time zone 'utc', 'YYYY-MM-DD')`.as('day'),
        sql<string>`count(*)`.as('ops'),
        sql<string>`coalesce(sum(${countedUsd}), 0)`.as('usd'),
      ])
      .groupBy(sql`to_char(created_at at time zone 'utc', 'YYYY-MM-DD')`)
      .orderBy('day', 'desc')
      .limit(90)
      .execute(),
  ]);
  const exact = (value: string) => usdString(parseUsd(value));
  return {
    ops: Number(total.ops),
    sponsoredUsd: exact(total.usd),
    settledUsd: exact(total.settled),
    reservedUsd: exact(total.reserved),
    bySender: bySender.map((row) => ({ sender: row.sender, ops: Number(row.ops), usd: exact(row.usd) })),
    byDay: byDay.map((row) => ({ day: row.day, ops: Number(row.ops), usd: exact(row.usd) })),
  };
}
