import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type HostProcess, pollUntil, spawnInNamespace } from './shell.ts';
import { type HostName, hosts } from './topology.ts';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const apiPort = 8080;
export const adminToken = 'cluster-admin-token-0123456789abcdef';
export const encryptionKey = '5e'.repeat(32);
/** anvil's account #9: the load sends from the lower ones. */
export const bundlerKey = '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6';
export const libfaketime = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

export type NodeName = 'api1' | 'api2' | 'work1' | 'work2';
export const workerRoles = 'indexer,webhooks,bundler';

/** What every Blockyard node of the run shares. */
export interface ClusterSettings {
  readonly runDir: string;
  readonly configFile: string;
  readonly mode: 'production' | 'development';
  readonly databaseUrl: string;
  readonly redisUrl: string;
  /** BLOCKYARD_SPONSOR_KEY of the API nodes (the signer of the run's verifying paymaster). */
  readonly sponsorKey?: string;
}

/** A running Blockyard node: its process (replaced by each restart) and where its log is. */
export interface BlockyardNode {
  readonly name: NodeName;
  readonly url: string;
  process: HostProcess;
  /** Where the current process's output starts in the log (the lease log lines of this start). */
  logOffset: number;
  /** DATABASE_URL of this node (work2's goes through the delaying proxy). */
  readonly databaseUrl: string;
}

export interface StartOptions {
  /** A clock this far ahead (libfaketime), e.g. '+30s'. */
  readonly clockAhead?: string;
}

function nodeEnvironment(settings: ClusterSettings, node: BlockyardNode, options: StartOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('BLOCKYARD_') || ['PORT', 'DATABASE_URL', 'REDIS_URL', 'LOG_LEVEL', 'LD_PRELOAD'].includes(name))
      continue;
    env[name] = value;
  }
  const dataDir = join(settings.runDir, node.name);
  mkdirSync(dataDir, { recursive: true });
  Object.assign(env, {
    BLOCKYARD_CONFIG: settings.configFile,
    BLOCKYARD_DATA_DIR: dataDir,
    BLOCKYARD_MODE: settings.mode,
    BLOCKYARD_HOST: hosts[node.name].address,
    PORT: String(apiPort),
    DATABASE_URL: node.databaseUrl,
    REDIS_URL: settings.redisUrl,
    BLOCKYARD_ADMIN_TOKEN: adminToken,
    BLOCKYARD_ENCRYPTION_KEY: encryptionKey,
    LOG_LEVEL: 'info',
    ...(node.name.startsWith('work') ? { BLOCKYARD_BUNDLER_KEYS: bundlerKey } : {}),
    ...(node.name.startsWith('api') && settings.sponsorKey ? { BLOCKYARD_SPONSOR_KEY: settings.sponsorKey } : {}),
    ...(options.clockAhead
      ? { LD_PRELOAD: libfaketime, FAKETIME: options.clockAhead, FAKETIME_DONT_FAKE_MONOTONIC: '1', FAKETIME_NO_CACHE: '1' }
      : {}),
  });
  return env;
}

export function logFileOf(settings: ClusterSettings, name: NodeName): string {
  return join(settings.runDir, `${name}.log`);
}

function logSize(file: string): number {
  try {
    return readFileSync(file).length;
  } catch {
    return 0;
  }
}

/** `node bin/blockyard.js start --roles ...` in the node's namespace; resolves once /livez (or /healthz) answers. */
export async function startNode(
  settings: ClusterSettings,
  name: NodeName,
  databaseUrl: string,
  options: StartOptions = {},
): Promise<BlockyardNode> {
  const node = { name, url: `http://${hosts[name].address}:${apiPort}`, databaseUrl } as BlockyardNode;
  await restartNode(settings, node, options);
  return node;
}

/** Starts the node's process again (after a kill): same settings, a new log section. */
export async function restartNode(settings: ClusterSettings, node: BlockyardNode, options: StartOptions = {}): Promise<void> {
  const logFile = logFileOf(settings, node.name);
  node.logOffset = logSize(logFile);
  const roles = node.name.startsWith('api') ? 'api' : workerRoles;
  node.process = spawnInNamespace(
    hosts[node.name as HostName].namespace,
    process.execPath,
    [join(repoRoot, 'bin/blockyard.js'), 'start', '--roles', roles],
    { env: nodeEnvironment(settings, node, options), logFile, cwd: join(settings.runDir, node.name) },
  );
  const serving = await pollUntil(
    async () => {
      if (!node.process.alive()) throw new Error('exited');
      const response = await fetch(`${node.url}/healthz`, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      return true;
    },
    90_000,
    300,
  );
  if (!serving || !node.process.alive()) throw new Error(`${node.name} did not start serving (log: ${logFile})`);
}

/** The node's Prometheus text (admin token: production mode asks for it), or undefined when it does not answer. */
export async function metricsOf(node: BlockyardNode, timeoutMs = 2_000): Promise<string | undefined> {
  if (!node.process.alive()) return undefined;
  try {
    const response = await fetch(`${node.url}/metrics`, {
      headers: { authorization: `Bearer ${adminToken}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
    return response.ok ? await response.text() : undefined;
  } catch {
    return undefined;
  }
}

/** A metric's value for a label set (labels given as `role="indexer"` fragments), or undefined. */
export function metricValue(text: string, name: string, labelFragments: readonly string[] = []): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (!(rest.startsWith('{') || rest.startsWith(' '))) continue;
    if (!labelFragments.every((fragment) => rest.includes(fragment))) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(value)) return value;
  }
  return undefined;
}

/** This start's log text (since the last restart). */
export function currentLog(node: BlockyardNode): string {
  try {
    return readFileSync(node.process.logFile).subarray(node.logOffset).toString('utf8');
  } catch {
    return '';
  }
}

export type LeaseRole = 'indexer' | 'bundler';
export const bothLeases: readonly LeaseRole[] = ['indexer', 'bundler'];

/**
 * Whether the node holds every lease of `roles` (the two leases are independent: after a Postgres
 * restart each may go to another worker): `blockyard_lease_held{role}` when the service exports it,
 * else this start's log ("<role> lease acquired" and no "lease lost" after it).
 */
export async function holdsLeases(node: BlockyardNode, roles: readonly LeaseRole[] = bothLeases): Promise<boolean> {
  if (!node.process.alive()) return false;
  const metrics = await metricsOf(node);
  if (metrics?.includes('blockyard_lease_held')) {
    return roles.every((role) => metricValue(metrics, 'blockyard_lease_held', [`role="${role}"`]) === 1);
  }
  const log = currentLog(node);
  return roles.every((role) => {
    const acquired = log.lastIndexOf(`${role} lease acquired`);
    return acquired >= 0 && log.lastIndexOf(`${role} lease lost`) < acquired;
  });
}
