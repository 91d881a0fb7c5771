import { type DestinationStream, type Logger, pino, stdSerializers } from 'pino';

/** Query parameters whose values are secrets and never reach a log line. */
const secretQueryParams = /([?&](?:apiKey|api_key|token|key)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(secretQueryParams, '$1[redacted]');
}

/**
 * JSON logs. Request headers are never logged (they carry API keys and the admin token), and URLs
 * have secret query parameters masked.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['req.headers', 'headers.authorization', 'headers["x-api-key"]', '*.apiKey', '*.key', '*.adminToken'],
        censor: '[redacted]',
      },
      serializers: {
        req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, url: redactUrl(req.url), ip: req.ip }),
        res: (res: { statusCode: number }) => ({ status: res.statusCode }),
        err: stdSerializers.err,
      },
    },
    destination,
  );
}
