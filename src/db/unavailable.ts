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

/** `error` itself, or the 503 it means when it says the database cannot be reached. */
export function asDatabaseError(error: unknown): unknown {
  return isDatabaseUnreachable(error) ? databaseUnavailable(error) : error;
}
