/**
 * Errors are values with a stable code. They become HTTP (or JSON-RPC) in one place:
 * `src/http/error-handler.ts`. Every code here is documented in `docs/errors.md` (a test checks it).
 */
export const errorStatus = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  policy_violation: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_key_in_use: 409,
  request_timeout: 408,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  headers_too_large: 431,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra response headers this error carries (Retry-After on 429 and 503). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; headers?: Record<string, string> } = {}) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = errorStatus[code];
    // Every 503 tells the client when to come back (docs/outages.md), whichever part refused.
    this.headers = code === 'service_unavailable' ? { 'retry-after': '1', ...options.headers } : (options.headers ?? {});
  }
}

export const invalidRequest = (param: string, problem: string) =>
  new AppError('invalid_request', `invalid parameter '${param}': ${problem}`);
export const unauthorized = (message: string) => new AppError('unauthorized', message);
export const forbidden = (message: string) => new AppError('forbidden', message);
export const notFound = (message: string) => new AppError('not_found', message);
export const conflict = (message: string) => new AppError('conflict', message);

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

/** The REST error body of spec section 7. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; status: number };
}

export function errorBody(error: AppError): ErrorBody {
  return { error: { code: error.code, message: error.message, status: error.status } };
}
