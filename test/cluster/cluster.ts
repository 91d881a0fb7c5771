import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { type HaproxyAdmin, haproxyAdmin } from './haproxy-admin.ts';
import {
  chainHead,
  chainUrl,
  type PostgresServer,
  redisPort,
  startAnvil,
  startHaproxy,
  startPostgres,
  startRedis,
  waitReady,
} from './infrastructure.ts';
import type { LoadProcess } from './load-process.ts';
import { apiPort, type BlockyardNode, type ClusterSettings, holdsLeases, type NodeName, repoRoot, startNode } from './nodes.ts';
import { type HostProcess, pollUntil, sh, spawnInNamespace } from './shell.ts';
import { addPaymaster, sponsorKey } from './sponsorship.ts';
import { forThisSubnet, hosts } from './topology.ts';

/** Everything the run started, for the faults to act on and the cleanup to stop. */
export interface Cluster {
  readonly runDir: string;
  readonly settings: ClusterSettings;
  readonly postgres: PostgresServer;
  redis: HostProcess;
  readonly anvil: HostProcess;
  readonly haproxy: HostProcess;
  /** haproxy's runtime API (the rolling upgrade drains nodes through it). */
  readonly haproxyAdmin: HaproxyAdmin;
  readonly delayProxy: DelayProxy;
  readonly nodes: Record<NodeName, BlockyardNode>;
  load?: LoadProcess;
  /** What the run had to do differently from deploy/ (a feature not there yet), said in the report. */
  readonly notes: string[];
}

/** The delaying TCP proxy between work2 and the database (test/cluster/delay-proxy.ts). */
export interface DelayProxy {
  readonly process: HostProcess;
  readonly url: string;
  set(link: { delayMs: number; lossRate: number }): Promise<void>;
}

const delayProxyPort = 15432;

function startDelayProxy(runDir: string, databaseUrl: string): Promise<DelayProxy> {
  const processHandle = spawnInNamespace(
    hosts.work2.namespace,
    process.execPath,
    ['--import', 'tsx', join(repoRoot, 'test/cluster/delay-proxy.ts'), `127.0.0.1:${delayProxyPort}`, `${hosts.db.address}:5432`],
    { logFile: join(runDir, 'delay-proxy.log'), cwd: repoRoot, ipc: true },
  );
  const url = databaseUrl.replace(`${hosts.db.address}:5432`, `127.0.0.1:${delayProxyPort}`);
  const reply = (type: string, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the delay proxy did not answer (${type})`)), timeoutMs);
      const onMessage = (message: { type: string }) => {
        if (message.type !== type) return;
        clearTimeout(timer);
        processHandle.child.off('message', onMessage);
        resolve();
      };
      processHandle.child.on('message', onMessage);
    });
  return reply('ready', 30_000).then(() => ({
    process: processHandle,
    url,
    async set(link) {
      const done = reply('set', 5_000);
      processHandle.child.send(link);
      await done;
    },
  }));
}

/** PING until Redis answers PONG. */
export function redisAnswers(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(redisPort, hosts.cache.address);
    const timer = setTimeout(() => finish(false), 1_000);
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => finish(data.toString().startsWith('+PONG')));
    socket.on('error', () => finish(false));
  });
}

/**
 * The deploy/ files as the run uses them. A feature another branch adds may be missing from this
 * checkout: then the run uses the older equivalent and says so.
 */
function effectiveDeployFiles(
  runDir: string,
  notes: string[],
): { configFile: string; haproxyFile: string; mode: 'production' | 'development' } {
  // The settings schema: one file, or split into a file per YAML section.
  const schema = ['src/config/schema.ts', 'src/config/webhook-settings.ts']
    .filter((file) => existsSync(join(repoRoot, file)))
    .map((file) => readFileSync(join(repoRoot, file), 'utf8'))
    .join('\n');
  const healthRoutes = readFileSync(join(repoRoot, 'src/health/routes.ts'), 'utf8');
  let configFile = join(repoRoot, 'deploy/blockyard.yaml');
  let mode: 'production' | 'development' = 'production';
  if (!schema.includes('private_destinations')) {
    const yaml = readFileSync(configFile, 'utf8')
      .replace(/^ {2}# Receivers on the private network.*\n {2}private_destinations:.*\n/m, '')
      .replace(/^mode: production$/m, 'mode: development');
    configFile = join(runDir, 'blockyard.yaml');
    writeFileSync(configFile, yaml);
    mode = 'development';
    notes.push('webhooks.private_destinations is not in this checkout: the nodes ran in development mode');
  }
  let haproxyFile = join(repoRoot, 'deploy/haproxy.cfg');
  if (!healthRoutes.includes('/livez')) {
    haproxyFile = join(runDir, 'haproxy.cfg');
    writeFileSync(haproxyFile, readFileSync(join(repoRoot, 'deploy/haproxy.cfg'), 'utf8').replace('uri /livez', 'uri /healthz'));
    notes.push('GET /livez is not in this checkout: haproxy checked /healthz');
  }
  return { configFile, haproxyFile, mode };
}

/** `npm run build`'s compiler step when src/ is newer than dist/ (the nodes run bin/blockyard.js). */
export function ensureBuild(log: (line: string) => void): void {
  const buildInfo = join(repoRoot, 'dist/.tsbuildinfo');
  const stale = !existsSync(buildInfo) || newestMtime(join(repoRoot, 'src')) > statSync(buildInfo).mtimeMs;
  if (!existsSync(join(repoRoot, 'dist/cli/main.js')) || stale) {
    log('building dist/ (tsc)');
    sh('npx', ['tsc', '-p', 'tsconfig.build.json'], { timeoutMs: 300_000 });
    sh(process.execPath, [join(repoRoot, 'scripts/copy-generated.mjs')], { timeoutMs: 60_000 });
  }
}

/** Brings every host up in order: db, cache, chain (+ ERC-4337 contracts), migrations, api1/2, work1 then work2, lb. */
export async function startCluster(runDir: string, log: (line: string) => void): Promise<Cluster> {
  const notes: string[] = [];
  const deployFiles = effectiveDeployFiles(runDir, notes);
  const { haproxyFile, mode } = deployFiles;
  const postgres = startPostgres(runDir);
  log(`postgres at ${postgres.url}`);
  const redis = startRedis(runDir);
  const anvil = startAnvil(runDir);
  await waitReady('redis', redisAnswers);
  await waitReady('anvil', async () => (await chainHead()) >= 0);
  await installErc4337Contracts(chainUrl);
  const configFile = await addPaymaster(chainUrl, deployFiles.configFile, runDir);
  writeFileSync(configFile, forThisSubnet(readFileSync(configFile, 'utf8')));
  notes.push(
    'the run adds a v0.7 verifying paymaster (gas sponsorship) to deploy/blockyard.yaml: the dashboard shows its deposit',
  );
  log('anvil up, ERC-4337 contracts and a verifying paymaster installed');

  const redisUrl = `redis://${hosts.cache.address}:${redisPort}`;
  const settings: ClusterSettings = { runDir, configFile, mode, databaseUrl: postgres.url, redisUrl, sponsorKey };
  // Migrations once, before any node starts (each start would apply them too, racing the others).
  sh(process.execPath, [join(repoRoot, 'bin/blockyard.js'), 'migrate'], {
    env: {
      ...process.env,
      DATABASE_URL: postgres.url,
      BLOCKYARD_CONFIG: configFile,
      BLOCKYARD_DATA_DIR: join(runDir, 'migrate'),
    },
    timeoutMs: 120_000,
  });
  log('migrations applied');

  const delayProxy = await startDelayProxy(runDir, postgres.url);
  const [api1, api2] = await Promise.all([startNode(settings, 'api1', postgres.url), startNode(settings, 'api2', postgres.url)]);
  const work1 = await startNode(settings, 'work1', postgres.url);
  const leader = await pollUntil(async () => ((await holdsLeases(work1)) ? true : undefined), 30_000, 250);
  if (!leader) throw new Error(`work1 did not take the indexer and bundler leases (log: ${work1.process.logFile})`);
  const work2 = await startNode(settings, 'work2', delayProxy.url);
  log(`api1, api2, work1 (lease holder), work2 (standby) serving on port ${apiPort}`);
  const admin = haproxyAdmin(runDir);
  const haproxy = startHaproxy(runDir, [haproxyFile, admin.configFile], apiPort);
  await waitReady('haproxy', async () => (await fetch(`${lbUrl}/healthz`, { signal: AbortSignal.timeout(2_000) })).status < 500);
  log(`haproxy at ${lbUrl}`);
  return {
    runDir,
    settings,
    postgres,
    redis,
    anvil,
    haproxy,
    haproxyAdmin: admin,
    delayProxy,
    nodes: { api1, api2, work1, work2 },
    notes,
  };
}

export const lbUrl = `http://${hosts.lb.address}:8080`;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}
