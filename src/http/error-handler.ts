import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorBody, isAppError } from '../core/errors.ts';
import { describeSchemaProblem, type SchemaIssue } from '../core/schema-problem.ts';
import { upstreamErrorIn, upstreamUnavailable } from '../core/upstream-error-in.ts';
import { databaseUnavailable, isDatabaseUnreachable } from '../db/unavailable.ts';

interface ValidationIssue extends SchemaIssue {
  instancePath: string;
}

const contextNames: Record<string, string> = {
  body: 'body',
  querystring: 'query parameter',
  params: 'path parameter',
  headers: 'header',
};

/** `/restrictions/origins/0` as `restrictions.origins[0]`, the form the services' own checks name. */
function parameterName(instancePath: string, property?: unknown): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (property !== undefined) parts.push(String(property));
  return parts.reduce((name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name ? `${name}.${part}` : part), '');
}

/** Turns a schema validation failure into a message that names the parameter, in words (schema-problem.ts). */
export function describeValidationError(issues: ValidationIssue[], context: string): AppError {
  const issue = issues[0];
  if (!issue) return new AppError('invalid_request', 'the request is not valid');
  const where = contextNames[context] ?? context;
  if (issue.keyword === 'required') {
    return new AppError(
      'invalid_request',
      `missing required ${where} '${parameterName(issue.instancePath, issue.params.missingProperty)}'`,
    );
  }
  if (issue.keyword === 'additionalProperties') {
    return new AppError(
      'invalid_request',
      `unknown ${where} '${parameterName(issue.instancePath, issue.params.additionalProperty)}'`,
    );
  }
  const param = parameterName(issue.instancePath);
  // A missing body reaches the validator as null (an empty one included: json-body.ts).
  if (where === 'body' && !param && issue.keyword === 'type') {
    return new AppError('invalid_request', 'the body must be a JSON object (Content-Type: application/json)');
  }
  const problem = describeSchemaProblem(issue);
  if (!param) return new AppError('invalid_request', `the ${where} ${problem}`);
  return new AppError('invalid_request', `invalid ${where} '${param}': ${problem}`);
}

/**
 * SQLSTATE classes a query fails with because of a value it was given: 22 (data exception: invalid
 * byte sequence 22021, untranslatable character 22P05, invalid text representation 22P02, numeric
 * value out of range 22003...) and 54 (program limit exceeded: statement too complex 54001...).
 */
const inputSqlStateClasses = new Set(['22', '54']);

/** A Postgres refusal of a value, as a 400 that says nothing of SQL; undefined for any other error. */
function postgresInputError(error: Error): AppError | undefined {
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  if (typeof code !== 'string' || typeof severity !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return undefined;
  if (!inputSqlStateClasses.has(code.slice(0, 2))) return undefined;
  return new AppError('invalid_request', 'a value in the request is not valid text or is out of range', { cause: error });
}

function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** 413 naming the limit: the route's (Fastify), or the one the fast path read with (`limit` on the error). */
function bodyTooLarge(error: Error, bodyLimit: number | undefined): AppError {
  const limit = (error as { limit?: number }).limit ?? bodyLimit;
  const most = limit === undefined ? 'this endpoint accepts' : `the ${formatBytes(limit)} this endpoint accepts`;
  return new AppError('payload_too_large', `the body is larger than ${most}`, { cause: error });
}

/** Maps every thrown error to the spec's error object; the only place errors become HTTP. */
export function toAppError(error: FastifyError | Error, bodyLimit?: number): AppError {
  if (isAppError(error)) return error;
  const refusedByPostgres = postgresInputError(error);
  if (refusedByPostgres) return refusedByPostgres;
  const fastifyError = error as FastifyError & { validation?: ValidationIssue[]; validationContext?: string };
  if (fastifyError.validation) return describeValidationError(fastifyError.validation, fastifyError.validationContext ?? 'body');
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_request', 'the body is not valid JSON', { cause: error });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return bodyTooLarge(error, bodyLimit);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(
        'unsupported_media_type',
        'the body must be sent as application/json (Content-Type: application/json)',
        {
          cause: error,
        },
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('invalid_request', 'the Content-Length header does not match the body', { cause: error });
    case 'FST_ERR_BAD_URL':
      return new AppError('invalid_request', 'the URL path is not valid: it has a malformed percent-encoding', {
        cause: error,
      });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('uri_too_long', 'a path parameter is longer than 100 characters', { cause: error });
    // Node's HTTP parser, before or while a request arrives (see client-error.ts).
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('request_timeout', 'the request did not arrive in time; send it without pausing', { cause: error });
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('headers_too_large', 'the request headers are larger than 16 KiB', { cause: error });
  }
  // Not every error's code is a string: viem's are JSON-RPC numbers.
  if (typeof fastifyError.code === 'string' && fastifyError.code.startsWith('HPE_'))
    return new AppError('invalid_request', 'the request is not valid HTTP', { cause: error });
  if (fastifyError.statusCode === 400) return new AppError('invalid_request', 'the request is not valid', { cause: error });
  // Raw driver errors that did not pass through the guarded pool (LISTEN clients, pg used directly).
  if (isDatabaseUnreachable(error)) return databaseUnavailable(error);
  // A chain read of a route (through a viem client of the service's) that no upstream could answer.
  const upstream = upstreamErrorIn(error);
  if (upstream) return upstreamUnavailable(upstream, error);
  // A library's own client error (e.g. the static files plugin's 403 for a path outside its root).
  const libraryStatus = fastifyError.statusCode ?? (error as { status?: number }).status;
  if (libraryStatus === 403 || libraryStatus === 404) return new AppError('not_found', 'not found', { cause: error });
  if (libraryStatus !== undefined && libraryStatus >= 400 && libraryStatus < 500) {
    return new AppError('invalid_request', 'the request is not valid', { cause: error });
  }
  return new AppError('internal_error', 'internal error; retry with exponential backoff', { cause: error });
}

export function errorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  const appError = toAppError(error, request.routeOptions.bodyLimit);
  // A 503 is a dependency that is down or a server draining: one line per request at warn, not error,
  // so an outage does not bury the faults that are ours.
  if (appError.status === 503) request.log.warn({ code: appError.code, msg: appError.message }, 'request refused: unavailable');
  else if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
  // Input that reached the database unchecked: the client's mistake, but a check is missing.
  else if (postgresInputError(error)) request.log.warn({ err: error }, 'input refused by Postgres');
  else request.log.debug({ code: appError.code, msg: appError.message }, 'request refused');
  return reply.code(appError.status).headers(appError.headers).type('application/json').send(errorBody(appError));
}
