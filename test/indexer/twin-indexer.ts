import { pino } from 'pino';
import { Registry } from 'prom-client';
import { privateKeyToAccount } from 'viem/accounts';
import { type ChainRegistry, createChainRegistry, type Network } from '../../src/chains/registry.ts';
import { buildChains } from '../../src/config/chain-settings.ts';
import { createBackfillStore } from '../../src/indexer/backfill-store.ts';
import type { SendRead } from '../../src/indexer/batch-read.ts';
import { createChainReader } from '../../src/indexer/chain-reader.ts';
import { createIndexer, type Indexer } from '../../src/indexer/indexer.ts';
import { createIndexerMetrics } from '../../src/indexer/indexer-metrics.ts';
import { createIndexStore } from '../../src/indexer/store.ts';
import { captureLogs, type LogCapture } from '../lag/log-capture.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { sumOfSamples } from '../support/metric-sum.ts';
import { type ProviderSim, startProviderSim } from '../support/provider-sim.ts';
import { startTwinAnvils, type TwinAnvils } from '../support/twin-anvils.ts';

export const network = 'ethereum/devnet';
const chainId = 31337;
const sender = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');

/** How the indexer's reads reach the pool: as it sends them, or stripped of the block they name. */
export type Routing = 'by block' | 'unrouted';

/** An indexer on `ethereum/devnet` through a pool of `upstreams` (in this order), on a fresh database. */
export interface PoolIndexer {
  readonly database: TestDatabase;
  readonly indexer: Indexer;
  readonly network: Network;
  readonly logs: LogCapture;
  /** A counter or gauge of the pool's and the indexer's metrics (summed over the lines containing `labelPart`). */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  stop(): Promise<void>;
}

export async function startPoolIndexer(upstreams: { name: string; url: string }[], routing: Routing): Promise<PoolIndexer> {
  const database = await createTestDatabase();
  const registry = new Registry();
  const entry = {
    chain: 'ethereum',
    network: 'devnet',
    chain_id: chainId,
    testnet: true,
    block_time_s: 0.25,
    finality_depth: 10,
    upstreams: upstreams.map((upstream) => ({ ...upstream, timeout_ms: 5_000 })),
    indexer: { enabled: true, start_block: 0 },
  };
  const chains: ChainRegistry = createChainRegistry(buildChains([entry], 1, 'pool-indexer'), { metricsRegistry: registry });
  const network = chains.list()[0]!;
  const logs = captureLogs();
  const send: SendRead =
    routing === 'by block'
      ? (body, need) => network.pool.send(body, need)
      : (body, need) => network.pool.send(body, { ...need, block: -1, oldest: -1 });
  const indexer = createIndexer({
    network,
    store: createIndexStore(database.db),
    backfills: createBackfillStore(database.db),
    publish: () => {},
    logger: pino({ level: 'debug' }, logs.destination),
    metrics: createIndexerMetrics(registry),
    reader: createChainReader({ send }),
  });
  return {
    database,
    indexer,
    network,
    logs,
    metric: async (name, labels) => sumOfSamples(await registry.metrics(), name, labels),
    async stop() {
      await indexer.stop();
      await chains.close();
      await database.close();
    },
  };
}

/**
 * Twin anvils A and B (one chain, B can be genuinely behind) behind honest simulators that count
 * calls; A's answers 15 ms late. The pool lists B first: B wins every choice it may win.
 */
export interface TwinIndexer extends PoolIndexer {
  readonly twins: TwinAnvils;
  readonly simA: ProviderSim;
  readonly simB: ProviderSim;
  /** A signed transfer from anvil's first account, with the next nonce. */
  transfer(value: bigint): Promise<string>;
}

export async function startTwinIndexer(routing: Routing): Promise<TwinIndexer> {
  const twins = await startTwinAnvils({ chainId });
  const [simA, simB] = await Promise.all([
    startProviderSim({ upstream: twins.a.url, behaviour: { latencyMs: 15 } }),
    startProviderSim({ upstream: twins.b.url }),
  ]);
  const indexed = await startPoolIndexer(
    [
      { name: 'b', url: simB.url },
      { name: 'a', url: simA.url },
    ],
    routing,
  );
  let nonce = 0;
  return {
    ...indexed,
    twins,
    simA,
    simB,
    transfer: (value) =>
      sender.signTransaction({
        chainId,
        nonce: nonce++,
        to: '0x00000000000000000000000000000000000b10c5',
        value,
        gas: 21_000n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
        type: 'eip1559',
      }),
    async stop() {
      await indexed.stop();
      await Promise.all([simA.close(), simB.close()]);
      await twins.stop();
    },
  };
}
