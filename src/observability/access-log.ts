import { type DestinationStream, type Logger, pino, symbols } from 'pino';
import { redactUrl } from './logger.ts';

/** One request, as its access log line tells it. */
export interface AccessEntry {
  readonly reqId: string;
  readonly method: string;
  /** As the client sent it; secret query parameters are masked here. */
  readonly url: string;
  readonly ip: string | undefined;
  readonly status: number;
  readonly ms: number;
}

export interface AccessLog {
  /** False when the level leaves access lines out: callers skip building the entry. */
  readonly enabled: boolean;
  write(entry: AccessEntry): void;
}

/**
 * The per-request line (`"msg":"request"` at info), the same JSON shape as every other log line, for
 * Fastify's routes and the fast path alike. It is written by a pino logger of its own on the service
 * logger's destination: no child logger per request, and no redaction pass, since the line is made
 * only of fields that hold no secret (method, path with secret query parameters masked, status, time,
 * request id, client address). Never a header, so never a key.
 */
export function createAccessLog(logger: Logger): AccessLog {
  const access = pino(
    { level: logger.level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime },
    // pino keeps a logger's destination under a symbol it exports for this.
    (logger as unknown as Record<symbol, DestinationStream>)[symbols.streamSym],
  );
  const enabled = access.isLevelEnabled('info');
  return {
    enabled,
    write(entry) {
      if (!enabled) return;
      access.info(
        {
          reqId: entry.reqId,
          req: { method: entry.method, url: redactUrl(entry.url), ip: entry.ip },
          res: { status: entry.status },
          ms: Math.round(entry.ms * 100) / 100,
        },
        'request',
      );
    },
  };
}
