import type { DestinationStream } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import type { Devnet } from '../../../src/chains/devnet.ts';
import { startTestAnvil } from '../../support/anvil.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { type ProviderSim, type ProviderSimOptions, startProviderSim } from '../../support/provider-sim.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/** `ethereum/devnet` (the test anvil's chain id) with a 1 s block time: head polls and lag checks every second. */
const devnet = { chain: 'ethereum', network: 'devnet', chain_id: 31337, testnet: true, block_time_s: 1 };

export interface TwoSimFeed {
  anvil: Devnet;
  /** The two provider simulators in front of the anvil, in the order of `behaviours`. */
  sims: [ProviderSim, ProviderSim];
  t: TestService;
  /** A key of every scope. */
  key: string;
}

export interface TwoSimFeedOptions {
  /** How each of the two simulators (over HTTP and WebSocket to the one anvil) behaves. */
  behaviours: [ProviderSimOptions['behaviour'], ProviderSimOptions['behaviour']];
  /** The two upstreams of `ethereum/devnet`, given the anvil and the simulators. */
  upstreams: (anvil: Devnet, sims: [ProviderSim, ProviderSim]) => unknown[];
  logDestination?: DestinationStream;
  logLevel?: string;
}

/**
 * In a describe block: an anvil, a database, two provider simulators in front of the anvil and the
 * service with `ethereum/devnet` (1 s block time) on `upstreams` of them, and one key, started before
 * its tests (and given to `assign`) and stopped after them.
 */
export function useTwoSimFeed(options: TwoSimFeedOptions, assign: (started: TwoSimFeed) => void): void {
  let anvil: Devnet | undefined;
  let database: TestDatabase | undefined;
  let sims: [ProviderSim, ProviderSim] | undefined;
  let t: TestService | undefined;
  beforeAll(async () => {
    [anvil, database] = await Promise.all([startTestAnvil(), createTestDatabase()]);
    const url = anvil.url;
    const ws = anvil.wsUrl;
    const [a, b] = options.behaviours;
    sims = await Promise.all([
      startProviderSim({ upstream: url, upstreamWs: ws, behaviour: a }),
      startProviderSim({ upstream: url, upstreamWs: ws, behaviour: b }),
    ]);
    t = await startTestService({
      sharing: { anvil, database },
      logDestination: options.logDestination,
      logLevel: options.logLevel,
      chains: [{ ...devnet, upstreams: options.upstreams(anvil, sims) }],
    });
    assign({ anvil, sims, t, key: (await t.createKey()).key });
  });
  afterAll(async () => {
    await t?.stop();
    await Promise.all(sims?.map((sim) => sim.close()) ?? []);
    await Promise.all([anvil?.stop(), database?.close()]);
  });
}
