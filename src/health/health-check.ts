import { sql } from 'kysely';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/connect.ts';

export interface HealthReport {
  status: 'ok' | 'unavailable';
  checks: Record<string, string>;
}

export interface HealthCheck {
  check(): Promise<HealthReport>;
}

/** A dependency that can say it is down without being asked over the network (the devnet process). */
export interface LivenessProbe {
  name: string;
  alive(): boolean;
}

/** Under the 2 s a client waits for any answer during an outage (issue 20). */
const chainProbeTimeoutMs = 1_500;

/**
 * Ready means: the database answers, and every chain's pool answers `eth_chainId` (or, for Solana,
 * `getHealth`): the pool fails over, so a network is ok while at least one of its upstreams is.
 */
export function createHealthCheck(deps: { db: Database; chains: ChainRegistry; probes?: LivenessProbe[] }): HealthCheck {
  const withTimeout = <T>(promise: Promise<T>) =>
    Promise.race([
      promise,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timed out')), chainProbeTimeoutMs).unref()),
    ]);

  return {
    async check() {
      const checks: Record<string, string> = {};
      const record = (name: string, task: Promise<string>) =>
        task.then(
          (outcome) => {
            checks[name] = outcome;
          },
          (error: Error) => {
            checks[name] = `error: ${error.message}`;
          },
        );
      const tasks: Promise<void>[] = [
        record(
          'database',
          withTimeout(sql`select 1`.execute(deps.db)).then(() => 'ok'),
        ),
      ];
      for (const probe of deps.probes ?? []) checks[probe.name] = probe.alive() ? 'ok' : 'error: not running';
      for (const network of deps.chains.list()) {
        const method = network.config.kind === 'solana' ? 'getHealth' : 'eth_chainId';
        const answer = withTimeout(network.pool.send(`{"jsonrpc":"2.0","id":1,"method":"${method}","params":[]}`));
        tasks.push(
          record(
            `chain ${network.config.chain}/${network.config.network}`,
            answer.then((text) => (text.includes('"result"') ? 'ok' : 'error: upstream answered with an error')),
          ),
        );
      }
      await Promise.all(tasks);
      const healthy = Object.values(checks).every((value) => value === 'ok');
      return { status: healthy ? 'ok' : 'unavailable', checks };
    },
  };
}
