import { type DestinationStream, destination as fileDestination, type Logger, pino, stdSerializers } from 'pino';
import { maskKeysInUrl } from '../auth/key-in-path.ts';
import { decodeUnreserved } from '../core/unreserved-escapes.ts';

/** Query parameters whose values are secrets and never reach a log line. */
const secretQueryParams = /([?&](?:apiKey|api_key|token|key)=)[^&#]*/gi;

/** The dashboard's one-time sign-in links carry their token in the path. */
const signInLinkPrefix = '/dashboard/sign-in/';

/**
 * The URL as a log line may show it: secret query parameters masked, an API key in the path cut to its
 * prefix, whatever the spelling (percent-encoded unreserved characters are decoded first: `%61piKey=` is
 * `apiKey=`, `/%64ashboard/` is `/dashboard/`).
 */
export function redactUrl(given: string): string {
  const url = decodeUnreserved(given);
  if (url.startsWith(signInLinkPrefix)) return `${signInLinkPrefix}[redacted]`;
  const masked = maskKeysInUrl(url);
  // Most URLs have no query: skip the regular expression for them (it runs for every access log line).
  return masked.includes('?') ? masked.replace(secretQueryParams, '$1[redacted]') : masked;
}

/**
 * Log lines waiting for a slow reader (a full pipe) beyond this are dropped rather than held: a
 * stalled log consumer must not grow the service's memory without bound.
 */
const maxPendingLogBytes = 16 * 1024 * 1024;

let stdout: DestinationStream | undefined;

/**
 * Standard output, written asynchronously: a line is handed to the kernel after the request that
 * logged it, and lines logged while a write is in progress go out together in the next one. Whatever
 * is still waiting is written synchronously when the process exits. One per process, shared.
 */
function asyncStdout(): DestinationStream {
  if (stdout) return stdout;
  const destination = fileDestination({ dest: 1, sync: false, maxLength: maxPendingLogBytes });
  process.once('exit', () => {
    try {
      destination.flushSync();
    } catch {
      // Nothing can be done about a closed stdout at exit.
    }
  });
  stdout = destination;
  return destination;
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
    destination ?? (level === 'silent' ? undefined : asyncStdout()),
  );
}
