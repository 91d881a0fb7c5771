import { sql } from 'kysely';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/connect.ts';
import { networkReadiness } from './network-readiness.ts';
import type { RedisPing } from './redis-ping.ts';

export interface HealthReport {
  status: 'ok' | 'unavailable';
  /** Each dependency and network: `ok`, or `error: why` (a network not needed for readiness says so). */
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

export interface HealthCheckDeps {
  db: Database;
  chains: ChainRegistry;
  probes?: LivenessProbe[];
  /** The configured Redis (REDIS_URL): a node that cannot reach it is not ready. */
  redis?: RedisPing;
  /** `chain/network` of the networks this node needs to be ready (`readiness.networks`; default all). */
  readyNetworks?: readonly string[];
}

/** Under the 2 s a client waits for any answer during an outage (issue 20). */
const databaseTimeoutMs = 1_500;

/**
 * Ready means: the database answers, Redis answers PING (when configured), the devnet runs (when
 * embedded), and every network the node needs has an upstream verified as its chain and serving. The
 * other networks are reported but do not make the node unready.
 */
export function createHealthCheck(deps: HealthCheckDeps): HealthCheck {
  return {
    async check() {
      const checks: Record<string, string> = {};
      const { redis } = deps;
      const [database, redisAnswer] = await Promise.all([
        outcomeOf(withTimeout(sql`select 1`.execute(deps.db), databaseTimeoutMs)),
        redis ? outcomeOf(redis.ping()) : undefined,
      ]);
      checks.database = database;
      if (redisAnswer !== undefined) checks.redis = redisAnswer;
      let ready = database === 'ok' && (redisAnswer === undefined || redisAnswer === 'ok');
      for (const probe of deps.probes ?? []) {
        checks[probe.name] = probe.alive() ? 'ok' : 'error: not running';
        if (!probe.alive()) ready = false;
      }
      for (const network of deps.chains.list()) {
        const name = `${network.config.chain}/${network.config.network}`;
        const needed = deps.readyNetworks?.includes(name) ?? true;
        const readiness = networkReadiness(network.pool.stats());
        if (readiness.ready) checks[`chain ${name}`] = 'ok';
        else if (needed) {
          checks[`chain ${name}`] = `error: ${readiness.reason}`;
          ready = false;
        } else checks[`chain ${name}`] = `error: ${readiness.reason}; not in readiness.networks, so the node stays ready`;
      }
      return { status: ready ? 'ok' : 'unavailable', checks };
    },
  };
}

async function outcomeOf(task: Promise<unknown>): Promise<string> {
  try {
    await task;
    return 'ok';
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), timeoutMs);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
