import { Writable } from 'node:stream';

// biome-ignore lint/suspicious/noExplicitAny: log lines are inspected freely
export type LogLine = Record<string, any> & { level: number; msg: string; time: number | string };

/** A pino destination that keeps every JSON line the service writes, for tests that read its log. */
export interface CapturedLog {
  readonly destination: Writable;
  readonly lines: readonly LogLine[];
  /** Lines at warn (40) or above whose fields include all of `fields`. */
  warnings(fields?: Record<string, unknown>): LogLine[];
}

export function captureLog(): CapturedLog {
  const lines: LogLine[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return {
    destination,
    lines,
    warnings: (fields = {}) =>
      lines.filter((line) => line.level >= 40 && Object.entries(fields).every(([name, value]) => line[name] === value)),
  };
}
