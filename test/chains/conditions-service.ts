import { afterAll, beforeAll, expect } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { freeze } from '../support/freeze.ts';
import { type CapturedLog, captureLog, type LogLine } from '../support/log-lines.ts';
import { metricSum } from '../support/metric-sum.ts';
import { type ProviderSim, startProviderSim } from '../support/provider-sim.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startTwinAnvils, type TwinAnvils } from '../support/twin-anvils.ts';

// biome-ignore lint/suspicious/noExplicitAny: admin answers are inspected freely
export type UpstreamStatus = Record<string, any> & { name: string; condition: string; reason: string | null };

/** What /admin/chains must show within this long of a change (issue 32). */
export const statusWithinMs = 2_000;

export interface ConditionsService {
  readonly t: TestService;
  readonly twins: TwinAnvils;
  /** The simulator in front of twin a, configured as `provider`. */
  readonly provider: ProviderSim;
  readonly log: CapturedLog;
  /** One upstream's entry in /admin/chains. */
  upstream(name: string): Promise<UpstreamStatus>;
  /** Polls /admin/chains until `name` is in `condition`; resolves with how long that took. */
  waitFor(name: string, condition: string, timeoutMs: number): Promise<number>;
  /** The condition lines of one upstream logged since `from` (a position in `log.lines`). */
  changes(name: string, from: number): LogLine[];
  metric(name: string, labels: Record<string, string>): Promise<number>;
  /** SIGSTOP / SIGCONT of twin b, the `own` upstream (continued after the tests if left stopped). */
  stopOwn(): void;
  continueOwn(): void;
}

/** `from->to` of each condition line. */
export const steps = (lines: readonly LogLine[]) => lines.map((line) => `${line.from}->${line.to}`);

/**
 * For the enclosing `describe`: a real service (log captured at debug) with `ethereum/devnet` on three
 * upstreams: `own`, a real anvil (twin b, to be stopped with SIGSTOP); `provider`, the simulator in front
 * of twin a (lags, rate-limits, comes back as another chain), with an rps budget and a logs range cap;
 * `backup`, twin a itself, a fallback that keeps the network serving. Eight blocks are mined first.
 */
export function conditionsService(): ConditionsService {
  const log = captureLog();
  const parts: { twins?: TwinAnvils; database?: TestDatabase; provider?: ProviderSim; t?: TestService } = {};
  let stopped = false;

  beforeAll(async () => {
    [parts.twins, parts.database] = await Promise.all([startTwinAnvils({ blockTimeS: 1 }), createTestDatabase()]);
    for (let block = 0; block < 8; block++) await parts.twins.mine();
    parts.provider = await startProviderSim({ upstream: parts.twins.a.url });
    parts.t = await startTestService({
      sharing: { anvil: parts.twins.a, database: parts.database },
      logDestination: log.destination,
      logLevel: 'debug',
      chains: [
        {
          chain: 'ethereum',
          network: 'devnet',
          chain_id: 31337,
          testnet: true,
          block_time_s: 1,
          upstreams: [
            { name: 'own', url: parts.twins.b.url },
            { name: 'provider', url: `${parts.provider.url}/v3/secret-key`, rps: 50, get_logs_max_range: 2_000 },
            { name: 'backup', url: parts.twins.a.url, tier: 'fallback' },
          ],
        },
      ],
    });
  });
  afterAll(async () => {
    if (stopped && parts.twins) process.kill(parts.twins.b.pid, 'SIGCONT');
    await parts.t?.stop();
    await parts.provider?.close();
    await Promise.all([parts.twins?.stop(), parts.database?.close()]);
  });

  const service: ConditionsService = {
    get t() {
      return parts.t!;
    },
    get twins() {
      return parts.twins!;
    },
    get provider() {
      return parts.provider!;
    },
    log,
    async upstream(name) {
      const { status, body } = await parts.t!.admin('GET', '/admin/chains');
      expect(status).toBe(200);
      return body.networks[0].upstreams.find((u: UpstreamStatus) => u.name === name);
    },
    async waitFor(name, condition, timeoutMs) {
      const started = performance.now();
      for (;;) {
        if ((await service.upstream(name)).condition === condition) return performance.now() - started;
        if (performance.now() - started > timeoutMs) {
          throw new Error(`${name} not ${condition} within ${timeoutMs} ms: ${JSON.stringify(await service.upstream(name))}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    changes: (name, from) =>
      log.lines.slice(from).filter((line) => line.upstream === name && line.from !== undefined && line.to !== undefined),
    metric: (name, labels) => metricSum(parts.t!.url, name, labels),
    stopOwn() {
      freeze(parts.twins!.b.pid);
      stopped = true;
    },
    continueOwn() {
      process.kill(parts.twins!.b.pid, 'SIGCONT');
      stopped = false;
    },
  };
  return service;
}

/** Polls `check` until it returns a value, for at most `timeoutMs`. */
export async function eventually<T>(check: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
