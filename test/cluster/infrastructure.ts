import { chmodSync, chownSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type HostProcess, pollUntil, sh, spawnInNamespace, stopGently } from './shell.ts';
import { hosts, subnet } from './topology.ts';

const pgBin = '/usr/lib/postgresql/15/bin';
export const postgresPort = 5432;
export const redisPort = 6379;
export const anvilPort = 8545;

/** The Postgres server's data directory (owned by the `postgres` user) and how to reach it. */
export interface PostgresServer {
  readonly dataDir: string;
  readonly logFile: string;
  readonly url: string;
}

/** Runs a Postgres tool as the `postgres` user inside the db host's namespace. */
function asPostgres(tool: string, args: readonly string[], timeoutMs = 60_000): string {
  return sh('ip', ['netns', 'exec', hosts.db.namespace, 'runuser', '-u', 'postgres', '--', join(pgBin, tool), ...args], {
    timeoutMs,
  });
}

/** initdb into `<runDir>/pg` (trust on the cluster's subnet, fsync off) and starts it; creates the `blockyard` database. */
export function startPostgres(runDir: string): PostgresServer {
  const dataDir = join(runDir, 'pg');
  const logFile = join(runDir, 'postgres.log');
  mkdirSync(dataDir, { mode: 0o700 });
  const { uid, gid } = postgresIds();
  chownSync(dataDir, uid, gid);
  writeFileSync(logFile, '');
  chownSync(logFile, uid, gid);
  // The postgres user must reach its directory through the run directory.
  chmodSync(runDir, 0o755);
  asPostgres('initdb', ['-D', dataDir, '--auth=trust', '--username=postgres', '--no-sync', '-E', 'UTF8']);
  writeFileSync(join(dataDir, 'pg_hba.conf'), `local all all trust\nhost all all ${subnet} trust\n`);
  const server = { dataDir, logFile, url: `postgres://postgres@${hosts.db.address}:${postgresPort}/blockyard` };
  startPostgresAgain(server);
  asPostgres('createdb', ['-h', hosts.db.address, '-U', 'postgres', 'blockyard']);
  return server;
}

/** `pg_ctl start` on the existing data directory (the restart fault's second half). */
export function startPostgresAgain(server: PostgresServer): void {
  const options = [
    `-c listen_addresses=${hosts.db.address}`,
    `-c port=${postgresPort}`,
    `-c unix_socket_directories=${server.dataDir}`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=200',
  ].join(' ');
  asPostgres('pg_ctl', ['-D', server.dataDir, '-l', server.logFile, '-o', options, '-w', '-t', '60', 'start']);
}

/** `pg_ctl stop` in `mode` (fast: the restart fault; immediate: the cleanup). Never throws. */
export function stopPostgres(server: PostgresServer, mode: 'fast' | 'immediate'): void {
  try {
    asPostgres('pg_ctl', ['-D', server.dataDir, '-m', mode, '-w', '-t', '30', 'stop']);
  } catch {
    // Not running.
  }
}

function postgresIds(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (!line) throw new Error('there is no postgres user (apt-get install postgresql-15)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** redis-server in the cache host, nothing persisted (a restart empties it, as a cache node's loss does). */
export function startRedis(runDir: string): HostProcess {
  return spawnInNamespace(
    hosts.cache.namespace,
    'redis-server',
    ['--bind', hosts.cache.address, '--port', String(redisPort), '--save', '', '--appendonly', 'no', '--protected-mode', 'no'],
    { logFile: join(runDir, 'redis.log') },
  );
}

/** anvil's binary from its platform package (`npx anvil` adds a wrapper process a kill would miss). */
function anvilBinary(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@foundry-rs/anvil-linux-amd64/package.json')), 'bin', 'anvil');
}

/** anvil in the chain host, a block a second, chain id 31337. */
export function startAnvil(runDir: string): HostProcess {
  return spawnInNamespace(
    hosts.chain.namespace,
    anvilBinary(),
    ['--host', hosts.chain.address, '--port', String(anvilPort), '--block-time', '1', '--chain-id', '31337', '--silent'],
    { logFile: join(runDir, 'anvil.log') },
  );
}

export const chainUrl = `http://${hosts.chain.address}:${anvilPort}`;

/** haproxy in the lb host with `deploy/haproxy.cfg` (and more `-f` files after it), the addresses given through the environment. */
export function startHaproxy(runDir: string, configFiles: readonly string[], apiPort: number): HostProcess {
  return spawnInNamespace(hosts.lb.namespace, 'haproxy', ['-db', ...configFiles.flatMap((file) => ['-f', file])], {
    logFile: join(runDir, 'haproxy.log'),
    env: {
      ...process.env,
      BLOCKYARD_LB_BIND: `${hosts.lb.address}:8080`,
      BLOCKYARD_API1: `${hosts.api1.address}:${apiPort}`,
      BLOCKYARD_API2: `${hosts.api2.address}:${apiPort}`,
    },
  });
}

/** Answers a JSON-RPC call to anvil, or throws (bounded by `timeoutMs`). */
export async function chainCall<T>(method: string, params: unknown[] = [], timeoutMs = 3_000): Promise<T> {
  const response = await fetch(chainUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const reply = (await response.json()) as { result?: T; error?: { message: string } };
  if (reply.error) throw new Error(`${method}: ${reply.error.message}`);
  return reply.result as T;
}

export async function chainHead(): Promise<number> {
  return Number(BigInt(await chainCall<string>('eth_blockNumber')));
}

/** Waits until a TCP-speaking dependency answers `probe` (bounded). */
export async function waitReady(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const ready = await pollUntil(async () => ((await probe()) ? true : undefined), timeoutMs);
  if (!ready) throw new Error(`${what} did not become ready within ${timeoutMs} ms`);
}

export { stopGently };
