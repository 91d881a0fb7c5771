import type { Config } from '../config/schema.ts';
import { describeDatabaseUrl } from '../db/connect.ts';
import { type InstanceInfo, readInstanceLock } from './instance-lock.ts';

/** What a process started with `--join DIR` takes from the service running on DIR. */
export interface JoinedService {
  readonly pid: number;
  readonly databaseUrl: string;
  /** The running service's embedded devnet, used as this process's upstream for the embedded chain. */
  readonly devnet?: InstanceInfo['devnet'];
}

/**
 * The service running on the data directory, for a process that joins it to run other roles (an
 * indexer, more API processes): the same database and the same devnet, never a second devnet of its
 * own, which would be another chain indexed into the same tables. Refuses when nothing runs there.
 */
export async function joinRunningService(config: Config): Promise<JoinedService> {
  const dir = config.dataDir;
  const running = await readInstanceLock(dir);
  if (!running) {
    throw new Error(`--join: no Blockyard is running on the data directory ${dir}; start it first (npm start), then join it`);
  }
  if (
    config.databaseUrl !== undefined &&
    running.databaseUrl !== undefined &&
    describeDatabaseUrl(config.databaseUrl) !== describeDatabaseUrl(running.databaseUrl)
  ) {
    // It joined the devnet but wrote its index, deliveries and ops into another database.
    throw new Error(
      `--join: the Blockyard running on ${dir} (pid ${running.pid}) uses its embedded Postgres at ${describeDatabaseUrl(running.databaseUrl)}, ` +
        `not DATABASE_URL's ${describeDatabaseUrl(config.databaseUrl)}; leave DATABASE_URL (--database-url) unset to join it`,
    );
  }
  const databaseUrl = config.databaseUrl ?? running.databaseUrl;
  if (databaseUrl === undefined) {
    throw new Error(
      `--join: the Blockyard running on ${dir} (pid ${running.pid}) uses a Postgres server of its own; give this process the same DATABASE_URL`,
    );
  }
  if (config.chains.some((chain) => chain.embedded) && running.devnet === undefined) {
    throw new Error(
      `--join: the Blockyard running on ${dir} (pid ${running.pid}) runs no embedded devnet; give this process the same chains: list`,
    );
  }
  return { pid: running.pid, databaseUrl, ...(running.devnet ? { devnet: running.devnet } : {}) };
}
