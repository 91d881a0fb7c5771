import { type DestinationStream, destination as fileDestination, type Logger, pino, stdSerializers } from 'pino';
import { redactUrl } from '../auth/key-in-path.ts';

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
        paths: [
          'req.headers',
          'headers.authorization',
          'headers["x-api-key"]',
          'headers["x-alchemy-token"]',
          '*.apiKey',
          '*.key',
          '*.adminToken',
        ],
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
