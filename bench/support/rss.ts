import { readFileSync } from 'node:fs';

export interface RssSampler {
  /** Stops sampling; the largest VmRSS seen, in MiB (NaN if none could be read). */
  stop(): number;
}

/** Samples /proc/<pid>/status VmRSS every `intervalMs` (Linux only) until stopped. */
export function sampleRss(pid: number, intervalMs = 100): RssSampler {
  let maxKb = Number.NaN;
  const sample = () => {
    const kb = readRssKb(pid);
    if (kb !== undefined && !(kb <= maxKb)) maxKb = kb;
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      sample();
      return maxKb / 1024;
    },
  };
}

/** One VmRSS reading in MiB (NaN if it cannot be read). */
export function readRssMiB(pid: number): number {
  const kb = readRssKb(pid);
  return kb === undefined ? Number.NaN : kb / 1024;
}

function readRssKb(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}
