// The part of autocannon 8's programmatic API the benchmarks use (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface Options {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Per-request settings; `setupRequest` may give each request a new body. */
    requests?: { method?: string; setupRequest?: (request: Record<string, unknown>) => Record<string, unknown> }[];
    /** Seconds without a response before a request counts as a timeout. */
    timeout?: number;
  }

  export interface Histogram {
    average: number;
    p50: number;
    p99: number;
  }

  export interface Result {
    requests: Histogram & { total: number };
    /** Whole milliseconds (autocannon's histogram truncates sub-millisecond values). */
    latency: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
  }

  export interface Instance extends EventEmitter, PromiseLike<Result> {
    stop(): void;
  }

  export default function autocannon(options: Options): Instance;
}
