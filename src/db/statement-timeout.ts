import { type QueryExecutorProvider, sql } from 'kysely';

/**
 * Sets this transaction's statement_timeout (0: none), over the session's: the indexer's writes and
 * migrations run longer than a request's queries may (limits.statement_timeout_ms).
 */
export async function setTransactionStatementTimeout(trx: QueryExecutorProvider, timeoutMs: number): Promise<void> {
  await sql`select set_config('statement_timeout', ${String(Math.max(0, Math.trunc(timeoutMs)))}, true)`.execute(trx);
}
