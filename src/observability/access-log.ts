import { type DestinationStream, type Logger, symbols } from 'pino';
import { redactUrl } from '../auth/key-in-path.ts';

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

/** pino's number for `info`. */
const infoLevel = 30;

/**
 * How long a line may wait for others to share its write. A write to stdout costs 40-55 us of CPU
 * (the asynchronous destination hands it to libuv's thread pool and back), many times a line's own
 * cost: one per event-loop turn still cost several microseconds per request, one per 100 ms costs
 * nothing that can be measured. Short enough to matter to no one reading the log.
 */
const flushIntervalMs = 100;
/** A burst writes sooner, so the pending text stays small. */
const flushBytes = 64 * 1024;

/** Lines not yet handed to the destination. */
class PendingLines {
  private text = '';
  private timer: NodeJS.Timeout | undefined;
  private readonly flushNow = () => this.flush();

  constructor(private readonly destination: DestinationStream) {}

  add(line: string): void {
    this.text += line;
    if (this.text.length >= flushBytes) this.flush();
    else if (this.timer === undefined) this.timer = setTimeout(this.flushNow, flushIntervalMs).unref();
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.text === '') return;
    const lines = this.text;
    this.text = '';
    this.destination.write(lines);
  }

  /** At exit: the service's stdout destination writes asynchronously, and only a synchronous write still lands. */
  flushSync(): void {
    this.flush();
    (this.destination as { flushSync?: () => void }).flushSync?.();
  }
}

/** Held weakly: a service that is gone (tests start many in one process) leaves nothing to flush. */
const flushedAtExit = new Set<WeakRef<PendingLines>>();

/** One process `exit` listener for every access log, however many services the process has run. */
function flushAtExit(pending: PendingLines): void {
  if (flushedAtExit.size === 0) {
    process.once('exit', () => {
      for (const ref of flushedAtExit) {
        try {
          ref.deref()?.flushSync();
        } catch {
          // Nothing can be done about a closed stdout at exit.
        }
      }
    });
  }
  flushedAtExit.add(new WeakRef(pending));
}

/**
 * The per-request line (`"msg":"request"` at info), for Fastify's routes and the fast path alike, in
 * the JSON shape pino gives every other line (`level`, `time`, fields, `msg`). It is made only of
 * fields that hold no secret (method, path with secret query parameters masked, status, time, request
 * id, client address), never a header, so never a key; that is why it skips pino's redaction and
 * serializers and is written as one template.
 *
 * Lines go to the destination together, at most 100 ms after the first of them (sooner past 64 KiB):
 * the write, not the line, was what logging cost. Lines pending at exit are written first; a process
 * killed with SIGKILL loses at most the last 100 ms of lines.
 */
export function createAccessLog(logger: Logger): AccessLog {
  // pino keeps a logger's destination under a symbol it exports for this.
  const destination = (logger as unknown as Record<symbol, DestinationStream | undefined>)[symbols.streamSym];
  if (!logger.isLevelEnabled('info') || destination === undefined) return { enabled: false, write() {} };
  const pending = new PendingLines(destination);
  flushAtExit(pending);
  let lastMs = 0;
  let lastTime = '';

  return {
    enabled: true,
    write(entry) {
      const nowMs = Date.now();
      if (nowMs !== lastMs) {
        lastMs = nowMs;
        lastTime = new Date(nowMs).toISOString();
      }
      const ip = entry.ip === undefined ? '' : `,"ip":${JSON.stringify(entry.ip)}`;
      pending.add(
        `{"level":${infoLevel},"time":"${lastTime}","reqId":${JSON.stringify(entry.reqId)},` +
          `"req":{"method":${JSON.stringify(entry.method)},"url":${JSON.stringify(redactUrl(entry.url))}${ip}},` +
          `"res":{"status":${entry.status}},"ms":${Math.round(entry.ms * 100) / 100},"msg":"request"}\n`,
      );
    },
  };
}
