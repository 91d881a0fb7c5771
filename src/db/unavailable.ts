import { AppError } from '../core/errors.ts';

/** Socket errors of a server that is gone, refusing, or not answering. */
const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** Postgres SQLSTATEs of a server shutting down, starting up, or out of connections (class 08 is matched apart). */
const serverStates = new Set(['57P01', '57P02', '57P03', '53300']);
/** node-postgres says these in words only. */
const clientMessages =
  /Connection terminated|timeout expired|timeout exceeded when trying to connect|not queryable|Query read timeout|Client was closed/i;

/** True when the error says the database cannot be reached now (not that the statement is wrong). */
export function isDatabaseUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof AggregateError) return error.errors.some(isDatabaseUnreachable);
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (socketCodes.has(code) || serverStates.has(code) || code.startsWith('08'))) return true;
  return clientMessages.test(error.message);
}

/** The answer while the database is down: temporary, retry in a second. */
export function databaseUnavailable(cause: unknown): AppError {
  return new AppError('service_unavailable', 'the database cannot be reached right now; retry shortly', {
    cause,
    headers: { 'retry-after': '1' },
  });
}

/** Postgres' query_canceled: here, a statement that ran past the session's statement_timeout. */
const statementTimeoutState = '57014';

/** The answer to a statement the database cancelled for running too long (limits.statement_timeout_ms). */
export function statementTimedOut(cause: unknown): AppError {
  return new AppError(
    'service_unavailable',
    'the query ran longer than the database allows (limits.statement_timeout_ms) and was cancelled; narrow it (an address, fewer contracts, a block range) or retry later',
    { cause },
  );
}

/** `error` itself, or the 503 it means when it says the database cannot be reached or cancelled a statement that ran too long. */
export function asDatabaseError(error: unknown): unknown {
  if (isDatabaseUnreachable(error)) return databaseUnavailable(error);
  if (error instanceof Error && (error as { code?: unknown }).code === statementTimeoutState) return statementTimedOut(error);
  return error;
}
