import type { Devnet } from '../../src/chains/devnet.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { jsonRpc } from '../support/json-rpc.ts';
import { metricSum } from '../support/metric-sum.ts';
import { type ProviderSim, startProviderSim } from '../support/provider-sim.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { type Receiver, startReceiver } from '../webhooks/support.ts';
import { captureLogs, type LogCapture } from './log-capture.ts';

/** Where a database comes from: the test run's Postgres (vitest) or the script's own. */
export interface LagDatabase {
  readonly db: TestService['database']['db'];
  readonly url: string;
  close(): Promise<void>;
}

export interface LagDeploymentOptions {
  database: LagDatabase;
  /** anvil's interval mining; undefined: automine (a block per transaction). */
  blockTimeS?: number;
  /** The network's `block_time_s` (the pool's head poll, the indexer's poll). */
  configBlockTimeS: number;
  /** Added to every answer of the honest upstream, so the lagging one wins every choice by latency it may win. */
  honestLatencyMs?: number;
}

/**
 * The service with its indexer and webhooks on `ethereum/devnet`, whose two upstreams are provider
 * simulators in front of ONE real anvil: `lagging` (listed first, so every tie goes to it) and `honest`.
 * The lagging one is told when to lag; both always serve the same chain, so any reorg is false.
 */
export interface LagDeployment {
  readonly anvil: Devnet;
  readonly honest: ProviderSim;
  readonly lagging: ProviderSim;
  readonly service: TestService;
  readonly receiver: Receiver;
  readonly logs: LogCapture;
  /** An API key of an enterprise test account. */
  readonly key: string;
  /** Calls the service's API with the key (JSON in and out). */
  // biome-ignore lint/suspicious/noExplicitAny: responses are inspected freely
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Creates a webhook to the receiver; its id. */
  createWebhook(eventType: string, config?: Record<string, unknown>): Promise<string>;
  /** Calls anvil directly (the test's own view of the chain). */
  anvilRpc(method: string, params?: unknown[]): Promise<unknown>;
  /** A counter of the service's /metrics (summed over labels matching `labelPart`). */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  stop(): Promise<void>;
}

export async function startLagDeployment(options: LagDeploymentOptions): Promise<LagDeployment> {
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  try {
    const anvil = await startTestAnvil({ blockTimeS: options.blockTimeS });
    stops.push(() => anvil.stop());
    const [lagging, honest] = await Promise.all([
      startProviderSim({ upstream: anvil.url, upstreamWs: anvil.wsUrl }),
      startProviderSim({ upstream: anvil.url, upstreamWs: anvil.wsUrl, behaviour: { latencyMs: options.honestLatencyMs ?? 0 } }),
    ]);
    stops.push(
      () => lagging.close(),
      () => honest.close(),
    );
    const receiver = await startReceiver();
    stops.push(() => receiver.close());
    const logs = captureLogs();
    const service = await startTestService({
      sharing: { anvil, database: options.database },
      logDestination: logs.destination,
      logLevel: 'info',
      chains: [chainEntry(lagging, honest, options.configBlockTimeS)],
    });
    stops.push(() => service.stop());
    const { key } = await service.createKey();
    return deploymentOf({ anvil, honest, lagging, service, receiver, logs, key, stop: stopAll });
  } catch (error) {
    await stopAll();
    throw error;
  }
}

function chainEntry(lagging: ProviderSim, honest: ProviderSim, blockTimeS: number): Record<string, unknown> {
  return {
    chain: 'ethereum',
    network: 'devnet',
    chain_id: 31337,
    testnet: true,
    dev_methods: true,
    block_time_s: blockTimeS,
    finality_depth: 10,
    upstreams: [
      { name: 'lagging', url: lagging.url, ws_url: lagging.wsUrl, timeout_ms: 5_000 },
      { name: 'honest', url: honest.url, ws_url: honest.wsUrl, timeout_ms: 5_000 },
    ],
    indexer: { enabled: true },
  };
}

function deploymentOf(parts: Omit<LagDeployment, 'api' | 'createWebhook' | 'anvilRpc' | 'metric'>): LagDeployment {
  const { service, key, receiver, anvil } = parts;
  const api: LagDeployment['api'] = async (method, path, body) => {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  return {
    ...parts,
    api,
    async createWebhook(eventType, config = {}) {
      const created = await api('POST', '/v1/webhooks', { url: receiver.url, chain: 'ethereum', event_type: eventType, config });
      if (created.status !== 201) throw new Error(`webhook not created: ${JSON.stringify(created.body)}`);
      return created.body.id as string;
    },
    anvilRpc: (method, params = []) => jsonRpc(anvil.url, method, params),
    metric: (name, labels) => metricSum(service.url, name, labels),
  };
}
