/** Latency samples in milliseconds, kept at full (sub-millisecond) precision, bounded in count. */
export interface LatencyRecorder {
  record(ms: number): void;
  readonly count: number;
  percentile(p: number): number;
}

export function createLatencyRecorder(maxSamples = 2_000_000): LatencyRecorder {
  let samples = new Float64Array(Math.min(maxSamples, 65_536));
  let count = 0;
  let sorted: Float64Array | undefined;
  return {
    record(ms) {
      if (count === maxSamples) return;
      if (count === samples.length) {
        const grown = new Float64Array(Math.min(maxSamples, samples.length * 2));
        grown.set(samples);
        samples = grown;
      }
      samples[count++] = ms;
      sorted = undefined;
    },
    get count() {
      return count;
    },
    percentile(p) {
      if (count === 0) return Number.NaN;
      sorted ??= samples.slice(0, count).sort();
      const index = Math.min(count - 1, Math.max(0, Math.ceil((p / 100) * count) - 1));
      return sorted[index]!;
    },
  };
}
