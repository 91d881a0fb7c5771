export interface LatencyStats {
  /** Exponentially weighted moving average of successful answers, in ms (0 before the first sample). */
  readonly ewmaMs: number;
  /** Exponentially weighted share of failed attempts, 0..1. */
  readonly errorRate: number;
  readonly samples: number;
  /** The 95th percentile of the recent samples, in ms (0 before the first sample). */
  p95Ms(): number;
  recordSuccess(ms: number): void;
  recordFailure(): void;
}

/** Recent enough to follow a node that slows down, large enough for a stable p95. */
const windowSize = 128;
/** Re-sorting the window on every call would cost more than the call; every 16 samples is fresh enough. */
const resortEvery = 16;
const latencyAlpha = 0.2;
const errorAlpha = 0.05;

/** Latency and error-rate tracking for one upstream, without allocating per sample. */
export function createLatencyStats(): LatencyStats {
  const window = new Float64Array(windowSize);
  const sorted = new Float64Array(windowSize);
  let next = 0;
  let samples = 0;
  let sinceSort = 0;
  let p95 = 0;
  let ewmaMs = 0;
  let errorRate = 0;

  return {
    get ewmaMs() {
      return ewmaMs;
    },
    get errorRate() {
      return errorRate;
    },
    get samples() {
      return samples;
    },
    p95Ms() {
      if (sinceSort === 0) return p95;
      if (sinceSort < resortEvery && p95 > 0) return p95;
      const size = Math.min(samples, windowSize);
      const view = sorted.subarray(0, size);
      view.set(window.subarray(0, size));
      view.sort();
      p95 = view[Math.min(size - 1, Math.floor(size * 0.95))] ?? 0;
      sinceSort = 0;
      return p95;
    },
    recordSuccess(ms) {
      window[next] = ms;
      next = (next + 1) % windowSize;
      samples++;
      sinceSort++;
      ewmaMs = ewmaMs === 0 ? ms : ewmaMs + latencyAlpha * (ms - ewmaMs);
      errorRate -= errorAlpha * errorRate;
    },
    recordFailure() {
      errorRate += errorAlpha * (1 - errorRate);
    },
  };
}
