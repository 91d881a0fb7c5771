import { type Kysely, type Migration, type MigrationResultSet, Migrator, sql } from 'kysely';
import * as accountsAndKeys from './migrations/2026-11-23T1000-accounts-and-keys.ts';
import * as chainIndex from './migrations/2026-11-23T1300-chain-index.ts';
import * as webhooks from './migrations/2026-11-24T1000-webhooks.ts';
import * as wallets from './migrations/2026-11-24T1400-wallets.ts';
import * as userOperations from './migrations/2026-11-24T1500-user-operations.ts';
import * as bundlerReputation from './migrations/2026-11-24T1600-bundler-reputation.ts';
import * as gasPolicies from './migrations/2026-11-24T1700-gas-policies.ts';
import * as gasSponsorships from './migrations/2026-11-24T1800-gas-sponsorships.ts';
import * as dashboardUsers from './migrations/2026-11-25T1000-dashboard-users.ts';
import * as usageMinutes from './migrations/2026-11-25T1100-usage-minutes.ts';
import * as userOperationCodeHashes from './migrations/2026-11-25T1200-user-operation-code-hashes.ts';
import * as emailVerifications from './migrations/2026-11-26T2300-email-verifications.ts';
import * as gasSponsorshipsByAccount from './migrations/2026-11-26T2300-gas-sponsorships-by-account.ts';
import * as transfersByAddress from './migrations/2026-11-27T0300-transfers-by-address.ts';
import * as keyRestrictions from './migrations/2026-11-27T0900-key-restrictions.ts';
import * as idempotencyKeys from './migrations/2026-11-27T1000-idempotency-keys.ts';
import * as indexOriginsAndBackfills from './migrations/2026-12-01T1200-index-origins-and-backfills.ts';
import * as webhookFinalDeliveries from './migrations/2026-12-02T0600-webhook-final-deliveries.ts';
import * as entryPointV08 from './migrations/2026-12-02T1300-entry-point-v08.ts';
import * as userOperationBundleReverts from './migrations/2026-12-02T1400-user-operation-bundle-reverts.ts';
import * as usedJwtIds from './migrations/2026-12-02T1600-used-jwt-ids.ts';
import * as dataQueryIndexes from './migrations/2026-12-02T1900-data-query-indexes.ts';
import * as webhookAddresses from './migrations/2026-12-03T0900-webhook-addresses.ts';
import * as spamFlags from './migrations/2026-12-03T1200-spam-flags.ts';
import * as webhookDeliveryWrites from './migrations/2026-12-03T1500-webhook-delivery-writes.ts';
import * as webhookMatcherRelease from './migrations/2026-12-04T0600-webhook-matcher-release.ts';
import * as webhookPausedNotices from './migrations/2026-12-04T1100-webhook-paused-notices.ts';
import * as userOperationStorageOwners from './migrations/2026-12-04T1700-user-operation-storage-owners.ts';
import * as usageMinutesByKey from './migrations/2026-12-04T2000-usage-minutes-by-key.ts';
import * as spamReports from './migrations/2026-12-05T0300-spam-reports.ts';
import * as nftAirdrops from './migrations/2026-12-05T1000-nft-airdrops.ts';
import * as nftAcquiredBlock from './migrations/2026-12-05T1100-nft-acquired-block.ts';
import * as mempoolAdmissionFunction from './migrations/2026-12-05T1700-mempool-admission-function.ts';
import * as nftHolderCollections from './migrations/2026-12-06T2315-nft-holder-collections.ts';
import * as webhookDeletedAt from './migrations/2026-12-07T0600-webhook-deleted-at.ts';
import { setTransactionStatementTimeout } from './statement-timeout.ts';

/**
 * Dated, append-only migrations: a new change is a new file and a new line here, never an edit of
 * one that has shipped. The names sort in the order they must run.
 */
const migrations: Record<string, Migration> = {
  '2026-11-23T1000-accounts-and-keys': accountsAndKeys,
  '2026-11-23T1300-chain-index': chainIndex,
  '2026-11-24T1000-webhooks': webhooks,
  '2026-11-24T1400-wallets': wallets,
  '2026-11-24T1500-user-operations': userOperations,
  '2026-11-24T1600-bundler-reputation': bundlerReputation,
  '2026-11-24T1700-gas-policies': gasPolicies,
  '2026-11-24T1800-gas-sponsorships': gasSponsorships,
  '2026-11-25T1000-dashboard-users': dashboardUsers,
  '2026-11-25T1100-usage-minutes': usageMinutes,
  '2026-11-25T1200-user-operation-code-hashes': userOperationCodeHashes,
  '2026-11-26T2300-email-verifications': emailVerifications,
  '2026-11-26T2300-gas-sponsorships-by-account': gasSponsorshipsByAccount,
  '2026-11-27T0300-transfers-by-address': transfersByAddress,
  '2026-11-27T0900-key-restrictions': keyRestrictions,
  '2026-11-27T1000-idempotency-keys': idempotencyKeys,
  '2026-12-01T1200-index-origins-and-backfills': indexOriginsAndBackfills,
  '2026-12-02T0600-webhook-final-deliveries': webhookFinalDeliveries,
  '2026-12-02T1300-entry-point-v08': entryPointV08,
  '2026-12-02T1400-user-operation-bundle-reverts': userOperationBundleReverts,
  '2026-12-02T1600-used-jwt-ids': usedJwtIds,
  '2026-12-02T1900-data-query-indexes': dataQueryIndexes,
  '2026-12-03T0900-webhook-addresses': webhookAddresses,
  '2026-12-03T1200-spam-flags': spamFlags,
  '2026-12-03T1500-webhook-delivery-writes': webhookDeliveryWrites,
  '2026-12-04T0600-webhook-matcher-release': webhookMatcherRelease,
  '2026-12-04T1100-webhook-paused-notices': webhookPausedNotices,
  '2026-12-04T1700-user-operation-storage-owners': userOperationStorageOwners,
  '2026-12-04T2000-usage-minutes-by-key': usageMinutesByKey,
  '2026-12-05T0300-spam-reports': spamReports,
  '2026-12-05T1000-nft-airdrops': nftAirdrops,
  '2026-12-05T1100-nft-acquired-block': nftAcquiredBlock,
  '2026-12-05T1700-mempool-admission-function': mempoolAdmissionFunction,
  '2026-12-06T2315-nft-holder-collections': nftHolderCollections,
  '2026-12-07T0600-webhook-deleted-at': webhookDeletedAt,
};

/**
 * Migrations renamed after a build had recorded them, by their old names. The mempool admission
 * function's was first dated 18:00, then 17:00 (when it was written): a database or a backup made by
 * the build in between knows it by the first name, and Kysely would refuse an applied name it does
 * not have ("corrupted migrations") or run the migration twice.
 */
const renamedMigrations: Readonly<Record<string, string>> = {
  '2026-12-05T1800-mempool-admission-function': '2026-12-05T1700-mempool-admission-function',
};

/** This build's name of a migration recorded under `name` (the same name unless it was renamed). */
export function currentMigrationName(name: string): string {
  return renamedMigrations[name] ?? name;
}

/** The old names of renamed migrations that this database has recorded (none when it has no migration table). */
// biome-ignore lint/suspicious/noExplicitAny: migrations run on any schema
async function recordedOldNames(db: Kysely<any>): Promise<string[]> {
  const { rows } = await sql<{ present: string | null }>`
    select to_regclass(quote_ident(current_schema()) || '.kysely_migration')::text as present`.execute(db);
  if (!rows[0]?.present) return [];
  const recorded = await sql<{ name: string }>`
    select name from kysely_migration where name = any(${Object.keys(renamedMigrations)}::text[])`.execute(db);
  return recorded.rows.map((row) => row.name);
}

/** Records renamed migrations under this build's names, before Kysely compares its list with the table. */
// biome-ignore lint/suspicious/noExplicitAny: migrations run on any schema
async function adoptRenamedMigrations(db: Kysely<any>): Promise<void> {
  for (const old of await recordedOldNames(db)) {
    await sql`update kysely_migration set name = ${currentMigrationName(old)} where name = ${old}`.execute(db);
  }
}

/** Each migration (one transaction with the others) without the session's statement_timeout: an index on a full table takes minutes. */
function withoutStatementTimeout(all: Record<string, Migration>): Record<string, Migration> {
  return Object.fromEntries(
    Object.entries(all).map(([name, migration]) => [
      name,
      {
        ...migration,
        up: async (db: Kysely<unknown>) => {
          await setTransactionStatementTimeout(db, 0);
          await migration.up(db);
        },
      },
    ]),
  );
}

// biome-ignore lint/suspicious/noExplicitAny: migrations run on any schema
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  await adoptRenamedMigrations(db);
  const migrator = new Migrator({ db, provider: { getMigrations: async () => withoutStatementTimeout(migrations) } });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`database migration ${failed ?? ''} failed: ${(result.error as Error).message}`, { cause: result.error });
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * The migrations not applied yet, in the order they would run; reads only (Kysely's migration table
 * is not created when it is missing: every migration is pending then).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run on any schema
export async function pendingMigrations(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => withoutStatementTimeout(migrations) } });
  const recordedAsOld = new Set((await recordedOldNames(db)).map(currentMigrationName));
  return (await migrator.getMigrations())
    .filter((migration) => migration.executedAt === undefined && !recordedAsOld.has(migration.name))
    .map(({ name }) => name);
}

/** Every migration this version has, in order: all of them are pending on a database not created yet. */
export const migrationNames: readonly string[] = Object.keys(migrations);

/**
 * Applies the migrations up to and including `target` on `db`, which must be bound to one
 * connection inside a transaction the caller opened (see `kyselyOnClient`): nothing commits here,
 * so the caller's later failure rolls the schema back too (`blockyard restore` is all-or-nothing).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run on any schema
export async function migrateToInOpenTransaction(db: Kysely<any>, target: string): Promise<string[]> {
  if (!migrationNames.includes(target)) throw new Error(`unknown migration ${target}`);
  await adoptRenamedMigrations(db);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => withoutStatementTimeout(migrations) },
    disableTransactions: true,
  });
  const result = await migrator.migrateTo(target);
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`database migration ${failed ?? ''} failed: ${(result.error as Error).message}`, { cause: result.error });
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
