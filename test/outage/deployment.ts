import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Address, createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { stringify } from 'yaml';
import { type CliProcess, cliEnv, spawnCli } from '../support/cli.ts';
import { type RunningRedis, startRedis } from '../support/redis.ts';
import { startReceiver } from '../webhooks/support.ts';
import { type OwnAnvil, type OwnPostgres, startOwnAnvil, startOwnPostgres } from './outage-service.ts';

/**
 * A deployment as it runs on several hosts, here on 127.0.0.1: its own Postgres and Redis, an anvil,
 * one `--roles api` process and one worker (`--roles indexer,webhooks,bundler`), each a separate
 * `blockyard start` (no state shared in memory with the test or with each other).
 */
export interface Deployment {
  readonly postgres: OwnPostgres;
  redis: RunningRedis;
  readonly anvil: OwnAnvil;
  readonly worker: CliProcess;
  /** The API process: replaced by restartApi(). */
  api: ApiProcess;
  readonly adminToken: string;
  /** A new account of `plan` and `count` keys of it (never used yet: in no key cache). */
  createKeys(plan: 'free' | 'growth' | 'enterprise', count?: number): Promise<string[]>;
  /** Stops the API process and starts another on the same database and Redis. */
  restartApi(): Promise<void>;
  /** Stops Redis and starts it again on the same port (every client's connection is broken). */
  restartRedis(): Promise<void>;
  close(): Promise<void>;
}

export interface ApiProcess {
  readonly cli: CliProcess;
  readonly url: string;
}

export async function startDeployment(): Promise<Deployment> {
  const dataDir = mkdtempSync(join(tmpdir(), 'blockyard-deployment-'));
  const [anvil, postgres, redis] = await Promise.all([startOwnAnvil(), startOwnPostgres(), startRedis()]);
  const adminToken = randomBytes(16).toString('hex');
  const anvilUrl = anvil.devnet.url;
  const chain = {
    chain: 'ethereum',
    network: 'devnet',
    chain_id: 31337,
    testnet: true,
    dev_methods: true,
    block_time_s: 0.2,
    finality_depth: 2,
    upstreams: [{ url: anvilUrl }],
  };
  const configFor = (name: string, indexer: boolean) => {
    const file = join(dataDir, `${name}.yaml`);
    writeFileSync(file, stringify({ chains: [{ ...chain, indexer: { enabled: indexer } }] }));
    return file;
  };
  const deployment: Deployment = {
    postgres,
    redis,
    anvil,
    adminToken,
    worker: undefined as unknown as CliProcess,
    api: undefined as unknown as ApiProcess,
    async createKeys(plan, count = 1) {
      const account = await admin(deployment.api.url, adminToken, '/admin/accounts', { name: 'outage', plan });
      const keys: string[] = [];
      for (let i = 0; i < count; i++) {
        const key = await admin(deployment.api.url, adminToken, `/admin/accounts/${account.id}/keys`, {
          name: `outage ${i}`,
          environment: 'test',
        });
        keys.push(key.key as string);
      }
      return keys;
    },
    async restartApi() {
      await deployment.api.cli.stop(10_000);
      deployment.api = await spawnRole('api', configFor('api', false));
    },
    async restartRedis() {
      await deployment.redis.stop();
      deployment.redis = await startRedis({ port: deployment.redis.port });
    },
    async close() {
      // Every part is stopped even when another fails to: nothing outlives the test.
      await Promise.allSettled([deployment.api?.cli.stop(10_000), deployment.worker?.stop(10_000)]);
      await Promise.allSettled([anvil.close(), postgres.stop(), deployment.redis.stop()]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  const encryptionKey = randomBytes(32).toString('hex');
  async function spawnRole(roles: string, configFile: string): Promise<ApiProcess> {
    const cli = spawnCli(['start', '--roles', roles], {
      cwd: dataDir,
      env: cliEnv({
        DATABASE_URL: postgres.url,
        REDIS_URL: deployment.redis.url,
        BLOCKYARD_CONFIG: configFile,
        BLOCKYARD_DATA_DIR: dataDir,
        BLOCKYARD_ADMIN_TOKEN: adminToken,
        BLOCKYARD_ENCRYPTION_KEY: encryptionKey,
        PORT: '0',
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      }),
    });
    try {
      const [, url] = (await cli.waitForOutput(/Blockyard is running at (http:\/\/127\.0\.0\.1:\d+)/, 90_000)) as [
        string,
        string,
      ];
      return { cli, url };
    } catch (error) {
      await cli.stop(5_000);
      throw error;
    }
  }
  try {
    // The worker first: it migrates the database the API process then finds ready.
    (deployment as { worker: CliProcess }).worker = (await spawnRole('indexer,webhooks,bundler', configFor('worker', true))).cli;
    deployment.api = await spawnRole('api', configFor('api', false));
  } catch (error) {
    await deployment.close().catch(() => undefined);
    throw error;
  }
  return deployment;
}

// biome-ignore lint/suspicious/noExplicitAny: admin answers are read freely
async function admin(url: string, token: string, path: string, body: unknown): Promise<any> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const answer = await response.json();
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

const devAccount = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const watched = '0x00000000000000000000000000000000000b0b0b' as Address;

export interface DeliveryCheck {
  /** A payment to the watched address reaches the webhook receiver (indexer, LISTEN/NOTIFY relay, delivery worker). */
  assertDeliveredWithin(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** A webhook on an address, for the worker process's side: index, match and deliver. */
export async function startDeliveryCheck(deployment: Deployment): Promise<DeliveryCheck> {
  const receiver = await startReceiver();
  const [key] = await deployment.createKeys('enterprise');
  const created = await fetch(`${deployment.api.url}/v1/webhooks`, {
    method: 'POST',
    headers: { 'x-api-key': key!, 'content-type': 'application/json' },
    body: JSON.stringify({
      url: receiver.url,
      chain: 'ethereum',
      network: 'devnet',
      event_type: 'address_activity',
      config: { addresses: [watched] },
    }),
    signal: AbortSignal.timeout(10_000),
  });
  if (created.status !== 201) throw new Error(`POST /v1/webhooks: ${created.status} ${await created.text()}`);
  const wallet = createWalletClient({ chain: foundry, transport: http(deployment.anvil.devnet.url), account: devAccount });
  return {
    async assertDeliveredWithin(ms) {
      const hash = await wallet.sendTransaction({ to: watched, value: 1n });
      await receiver.waitFor(
        (requests) => requests.some((request) => JSON.stringify(request.json).includes(hash)),
        ms,
        `the webhook delivery of ${hash}`,
      );
    },
    close: () => receiver.close(),
  };
}
