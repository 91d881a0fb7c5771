/**
 * The contract between the cluster harness (test/cluster/) and the load with its observers
 * (test/cluster/load/): what the harness gives, the messages over the IPC channel, what comes back.
 * The harness (test/cluster/load-process.ts) imports these types.
 */
export interface ClusterTargets {
  /** haproxy, e.g. http://10.231.0.13:8080 (all load goes through it). */
  lbUrl: string;
  /** api1, api2 directly, e.g. http://10.231.0.21:8080 (the rate-limit probe only). */
  apiUrls: string[];
  /** anvil directly, http://10.231.0.12:8545: the independent observer and the transaction sender. */
  chainRpcUrl: string;
  /** 'ethereum' */
  chain: string;
  /** 'devnet' */
  network: string;
  adminToken: string;
  /** rx's address, 10.231.0.40: the webhook receivers listen there. */
  bindHost: string;
}

export interface PhaseStats {
  name: string;
  /** By HTTP status ('200','429','503',...), JSON-RPC over HTTP included; a WebSocket upgrade is '101'. */
  answered: Record<string, number>;
  /** Network error or no answer within 5 s. */
  noAnswer: number;
  slowestMs: number;
  /** 500s, any other 5xx not in the spec's error shape, 503 without Retry-After. */
  badErrors: number;
  /** Times a WebSocket subscriber saw no newHeads for more than 5 s while the chain made blocks (reported, not a failure). */
  wsGaps: number;
}

export interface LoadHealth {
  /** The last few requests of every kind (JSON-RPC, REST, WS newHeads) succeeded. */
  recentOk: boolean;
  /**
   * Matching transfers mined >= 3 s ago that some webhook has not received (one whose first attempt
   * the receiver refused on purpose is owed 12 s after that refusal, the service's first retry delay).
   * In a DrainReport: every mined transfer not at every receiver, no grace.
   */
  undelivered: number;
  /** Accepted UserOperations not yet seen landed on chain (under a steady load one is often in flight). */
  opsPending: number;
}

export interface Verdict {
  phases: PhaseStats[];
  deliveries: { expected: number; sent: number; unique: number; duplicates: number; missing: number; outOfOrder: number };
  /** refused: sends the bundler refused (not a violation by itself; the first messages are logged). */
  ops: { accepted: number; landed: number; twice: number; revertedBundles: number; refused: number };
  limit: { limit: number; maxAcceptedInAWindow: number; windows: number };
  ws: { subscribers: number; headsReceived: number; reconnects: number };
  /** Human-readable: every broken invariant (empty = all held). */
  violations: string[];
}

export interface DrainReport {
  seconds: number;
  converged: boolean;
  health: LoadHealth;
}

/** Rates and sizes of the load; every field optional (the defaults are the figures). */
export interface LoadSettings {
  /** JSON-RPC calls per second through the load balancer (default 20). */
  rpcPerSecond?: number;
  /** GET /v1/webhooks per second (default 2). */
  restPerSecond?: number;
  /** Token transfers per second, sent to the chain directly (default 2). */
  transfersPerSecond?: number;
  /** newHeads subscribers (default 3). */
  wsSubscribers?: number;
  /** UserOperations: count (default 100), senders (20), spread over spreadMs (300,000). */
  ops?: { count?: number; senders?: number; spreadMs?: number };
  /** The free-plan probe: a burst (default 40 calls) every everyMs (2,000). */
  rateProbe?: { everyMs?: number; burst?: number };
}

export type HarnessMessage =
  | { type: 'start'; targets: ClusterTargets; settings?: LoadSettings }
  | { type: 'phase'; name: string }
  | { type: 'health' }
  | { type: 'drain'; timeoutMs: number }
  | { type: 'verdict' }
  | { type: 'stop' };

export type LoadMessage =
  | { type: 'started' }
  | { type: 'health'; health: LoadHealth }
  | { type: 'drained'; report: DrainReport }
  | { type: 'verdict'; verdict: Verdict }
  | { type: 'stopped' }
  | { type: 'error'; message: string };
