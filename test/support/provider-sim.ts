import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { honestBehaviour, type SimBehaviour } from './provider-sim/behaviour.ts';
import { createCallAnswerer } from './provider-sim/call-answerer.ts';
import { createCallLog } from './provider-sim/call-log.ts';
import { type HeadFeed, startHeadFeed } from './provider-sim/head-feed.ts';
import { createHttpHandler } from './provider-sim/http-front.ts';
import type { RpcCall } from './provider-sim/json-rpc.ts';
import { admitCalls, createTokenBucket, type TokenBucket } from './provider-sim/rate-limiter.ts';
import type { SimCore } from './provider-sim/sim-core.ts';
import { createStallGate } from './provider-sim/stall-gate.ts';
import { createUpstream } from './provider-sim/upstream.ts';
import { createWsFront } from './provider-sim/ws-front.ts';

export interface ProviderSimOptions {
  /** The real node's HTTP URL (a test anvil). */
  upstream: string;
  /** Its WebSocket URL; without it the simulator refuses eth_subscribe. */
  upstreamWs?: string;
  behaviour?: Partial<SimBehaviour>;
}

/** A JSON-RPC node in front of a real anvil that misbehaves as told (see SimBehaviour). */
export interface ProviderSim {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** ws://127.0.0.1:PORT (the same port) */
  readonly wsUrl: string;
  readonly behaviour: Readonly<SimBehaviour>;
  /**
   * Changes behaviour from the next request on, merged into the current one (`undefined` turns a field off).
   * A rateLimit given starts with a full bucket; an alternate given starts with the honest node.
   */
  set(change: Partial<SimBehaviour>): void;
  /** Back to an honest node. */
  reset(): void;
  /** JSON-RPC calls received over HTTP and WebSocket (a batch element counts one), of one method or all. */
  calls(method?: string): number;
  /** Calls the rate limiter refused. */
  refused(): number;
  /** performance.now() of every call received, refused ones included. */
  readonly receivedTimes: readonly number[];
  /** performance.now() of every call the rate limiter let through. */
  readonly servedTimes: readonly number[];
  /** performance.now() of every call the rate limiter refused. */
  readonly refusedTimes: readonly number[];
  /** The same array as receivedTimes. */
  readonly callTimes: readonly number[];
  /** Empties the counts and times above. */
  clearCounts(): void;
  /** Terminates every WebSocket client connection (they must reconnect). */
  dropSockets(): void;
  /** Closes at once, held (stalled) requests included. */
  close(): Promise<void>;
}

/**
 * @example
 * const anvil = await startTestAnvil();
 * const sim = await startProviderSim({ upstream: anvil.url, upstreamWs: anvil.wsUrl, behaviour: { lagBlocks: 2 } });
 * sim.set({ rateLimit: { rps: 5, style: 'http' } });
 */
export async function startProviderSim(options: ProviderSimOptions): Promise<ProviderSim> {
  let behaviour: Readonly<SimBehaviour> = { ...honestBehaviour, ...options.behaviour };
  const upstream = createUpstream(options.upstream);
  const heads =
    options.upstreamWs === undefined ? undefined : await startHeadFeed(options.upstreamWs, upstream, behaviour.lagBlocks);
  const log = createCallLog();
  const gate = createStallGate(behaviour.stall);
  const limiter = createLimiter(() => behaviour);
  const admit = (calls: RpcCall[]) => {
    const admitted = limiter.admit(calls);
    const served = admitted.filter(Boolean).length;
    log.served(served);
    log.refused(admitted.length - served);
    return admitted;
  };
  const core: SimCore = { behaviour: () => behaviour, log, gate, admit, answer: createCallAnswerer(upstream) };
  const balancer = createAlternation(() => behaviour);
  const ws = createWsFront(core, heads, options.upstreamWs);
  const server = createServer(createHttpHandler(core, balancer.lagForRequest));
  server.on('upgrade', (request, socket, head) => ws.handleUpgrade(request, socket, head));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const apply = (next: Readonly<SimBehaviour>, change: Partial<SimBehaviour>) => {
    behaviour = next;
    if ('rateLimit' in change) limiter.reset();
    if ('alternate' in change) balancer.restart();
    heads?.setLag(next.lagBlocks);
    gate.setStalled(next.stall);
  };
  return {
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    get behaviour() {
      return behaviour;
    },
    set: (change) => apply({ ...behaviour, ...change }, change),
    reset: () => apply(honestBehaviour, honestBehaviour),
    calls: (method) => log.count(method),
    refused: () => log.refusedCount(),
    receivedTimes: log.receivedTimes,
    servedTimes: log.servedTimes,
    refusedTimes: log.refusedTimes,
    callTimes: log.receivedTimes,
    clearCounts: () => log.clear(),
    dropSockets: () => ws.dropSockets(),
    close: () => closeAll(server, ws, gate, heads),
  };
}

function createLimiter(behaviour: () => Readonly<SimBehaviour>) {
  let bucket: TokenBucket | undefined;
  return {
    admit(calls: RpcCall[]): boolean[] {
      const limit = behaviour().rateLimit;
      if (limit === undefined) return calls.map(() => true);
      bucket ??= createTokenBucket(limit.rps);
      return admitCalls(bucket, calls.length, limit.style);
    },
    reset() {
      bucket = undefined;
    },
  };
}

/** Successive HTTP requests go to the honest node, then the lagging one, and so on (from the first after a set). */
function createAlternation(behaviour: () => Readonly<SimBehaviour>) {
  let requests = 0;
  return {
    lagForRequest(): number {
      const { alternate, lagBlocks } = behaviour();
      const toLagging = requests++ % 2 === 1;
      return alternate !== undefined && toLagging ? alternate.lagBlocks : lagBlocks;
    },
    restart() {
      requests = 0;
    },
  };
}

async function closeAll(
  server: ReturnType<typeof createServer>,
  ws: ReturnType<typeof createWsFront>,
  gate: ReturnType<typeof createStallGate>,
  heads: HeadFeed | undefined,
): Promise<void> {
  gate.close();
  ws.close();
  heads?.close();
  const closed = new Promise((resolve) => server.close(resolve));
  server.closeAllConnections();
  await closed;
}
