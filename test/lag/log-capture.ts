import type { DestinationStream } from 'pino';

export interface LoggedLine {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** The service's log lines, kept when they matter to a lag run: every reorg line, every warn or worse. */
export interface LogCapture {
  readonly destination: DestinationStream;
  /** Lines that mention a reorg (the indexer's "reorg: blocks above the common ancestor undone"). */
  readonly reorgs: LoggedLine[];
  /** Warn (40) and worse. */
  readonly warnings: LoggedLine[];
  /** Lines seen in all. */
  lineCount(): number;
}

/** Lines kept per list at most: a run that goes wrong must not fill the memory with them. */
const keptAtMost = 2_000;

export function captureLogs(): LogCapture {
  const reorgs: LoggedLine[] = [];
  const warnings: LoggedLine[] = [];
  let lines = 0;
  const keep = (list: LoggedLine[], line: LoggedLine) => {
    if (list.length < keptAtMost) list.push(line);
  };
  return {
    destination: {
      write(text: string) {
        for (const raw of text.split('\n')) {
          if (raw === '') continue;
          lines++;
          let line: LoggedLine;
          try {
            line = JSON.parse(raw) as LoggedLine;
          } catch {
            continue;
          }
          if (/reorg/i.test(String(line.msg))) keep(reorgs, line);
          if (line.level >= 40) keep(warnings, line);
        }
      },
    },
    reorgs,
    warnings,
    lineCount: () => lines,
  };
}
