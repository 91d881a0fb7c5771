// Messages between bench/ws.ts and its load-generator processes (bench/support/ws-clients.ts), over IPC.

export type ToClients =
  /** One client per endpoint: the URL (its key) and the loopback address it connects from. */
  | { type: 'connect'; endpoints: WsEndpoint[]; concurrency: number; timeoutMs: number }
  /** Starts the measured window: receipts before it are dropped, event-loop use is counted from here. */
  | { type: 'measure' }
  | { type: 'report' }
  /** Closes every client (a normal close, bounded by `timeoutMs`), ready for the next `connect`. */
  | { type: 'disconnect'; timeoutMs: number };

export interface WsEndpoint {
  url: string;
  localAddress: string;
  /** What the client subscribes to: newHeads, or the logs of `logsAddress`. */
  subscribe: 'newHeads' | 'logs';
}

/** The contract whose logs the `logs` clients follow (bench/ws.ts installs it with anvil_setCode). */
export const logsAddress = '0x00000000000000000000000000000000000b10c5';

export interface ClientsReady {
  type: 'ready';
  subscribed: number;
  failed: number;
  /** The first few failure reasons. */
  errors: string[];
  ms: number;
}

export interface ClientsReport {
  type: 'report';
  /** Per client, flattened pairs [block number, receipt time in monotonic microseconds]. */
  receipts: number[][];
  /** Connections that closed or failed after subscribing, with the close code. */
  closes: number[];
  /** Messages that were neither the subscription answer nor a newHeads item. */
  unexpected: number;
  /** Event-loop utilization of this process during the measured window, 0-1. */
  eventLoopUse: number;
  /** Time spent in this process's message handlers during the measured window, ms. */
  handlerMs: number;
}

export interface ClientsClosed {
  type: 'closed';
  /** Clients that had to be terminated because they did not close within the time given. */
  terminated: number;
}

export type FromClients = ClientsReady | ClientsReport | ClientsClosed;

/** Monotonic microseconds, comparable across processes on one Linux machine (CLOCK_MONOTONIC). */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}
