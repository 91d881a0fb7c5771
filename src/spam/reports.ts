import { sql } from 'kysely';
import type { Database } from '../db/connect.ts';

/** How a contract was reported on a network: by how many accounts as spam and as not spam, and when last. */
export interface SpamReportSummary {
  readonly contract: string;
  readonly spam_reports: number;
  readonly not_spam_reports: number;
  readonly last_reported_at: string;
}

/** The contracts a summary lists at most, most reported as spam first. */
export const maxReportSummaries = 1_000;

/**
 * Spam reports (Alchemy's reportSpam): each account's last word on a contract. They change no verdict;
 * operators read them and decide with the allow and deny lists (docs/spam.md).
 */
export function createSpamReports(db: Database) {
  return {
    async record(network: string, contract: string, accountId: string, isSpam: boolean): Promise<void> {
      await db
        .insertInto('spam_reports')
        .values({ network, contract, account_id: accountId, is_spam: isSpam, reported_at: new Date() })
        .onConflict((conflict) =>
          conflict.columns(['network', 'contract', 'account_id']).doUpdateSet({ is_spam: isSpam, reported_at: new Date() }),
        )
        .execute();
    },

    async summary(network: string): Promise<SpamReportSummary[]> {
      const rows = await db
        .selectFrom('spam_reports')
        .select([
          'contract',
          sql<string>`count(*) filter (where is_spam)`.as('spam_reports'),
          sql<string>`count(*) filter (where not is_spam)`.as('not_spam_reports'),
          sql<Date>`max(reported_at)`.as('last_reported_at'),
        ])
        .where('network', '=', network)
        .groupBy('contract')
        .orderBy('spam_reports', 'desc')
        .orderBy('contract')
        .limit(maxReportSummaries)
        .execute();
      return rows.map((row) => ({
        contract: row.contract,
        spam_reports: Number(row.spam_reports),
        not_spam_reports: Number(row.not_spam_reports),
        last_reported_at: new Date(row.last_reported_at).toISOString(),
      }));
    },
  };
}

export type SpamReports = ReturnType<typeof createSpamReports>;
