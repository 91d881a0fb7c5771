import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DestinationStream } from 'pino';
import { stringify } from 'yaml';
import type { Devnet } from '../../src/chains/devnet.ts';
import { loadConfig } from '../../src/config/load.ts';
import { type RunningService, startService } from '../../src/service/start-service.ts';
import { startTestAnvil } from './anvil.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

export interface TestKeyOptions {
  plan?: 'free' | 'growth' | 'enterprise';
  limits?: Record<string, number | null>;
  scopes?: string[];
  environment?: 'test' | 'live';
}

export interface TestService {
  readonly url: string;
  readonly adminToken: string;
  readonly service: RunningService;
  readonly anvil: Devnet;
  readonly database: TestDatabase;
  readonly dataDir: string;
  /** Calls the admin API with the admin token. */
  // biome-ignore lint/suspicious/noExplicitAny: test responses are inspected freely
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** A new account and a key for it (enterprise, all scopes, test environment unless told). */
  createKey(options?: TestKeyOptions): Promise<{ key: string; keyId: string; accountId: string }>;
  /** POSTs a JSON-RPC body (a string is sent as is) to /v1/rpc/{chain}/{network}. */
  rpc(key: string | undefined, body: unknown, path?: string, headers?: Record<string, string>): Promise<Response>;
  stop(): Promise<void>;
}

/** The test anvil as `ethereum/devnet` (a testnet with dev methods), with more settings of the entry (e.g. `bundler`). */
export function devnetChain(anvilUrl: string, more: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    chain: 'ethereum',
    network: 'devnet',
    chain_id: 31337,
    testnet: true,
    dev_methods: true,
    upstreams: [{ url: anvilUrl }],
    ...more,
  };
}

export const adminTokenForTests = 'test-admin-token-0123456789abcdef';

/**
 * The whole service in this process, on a fresh database (PGlite, or Postgres when DATABASE_URL is
 * set) and a real anvil (automine) configured as `ethereum/devnet` (a testnet) and, for the
 * environment checks, also as `ethereum/mainnet`.
 */
export async function startTestService(
  options: {
    redisUrl?: string;
    logDestination?: DestinationStream;
    logLevel?: string;
    chains?: unknown[];
    /** The chains to configure, given the test anvil's URL (e.g. to turn its indexer on). */
    chainsFor?: (anvilUrl: string) => unknown[];
    /** A database and anvil this service shares and does not stop: another test service's (a second process of one deployment) or the caller's. */
    sharing?: Pick<TestService, 'anvil' | 'database'>;
    /** More top-level sections of the YAML file, e.g. `tokens`, `nfts`. */
    settings?: Record<string, unknown>;
    /** Files written into the data directory before the start (e.g. a token list the settings name). */
    files?: Record<string, string>;
    /** BLOCKYARD_ROLES; default all. */
    roles?: string;
    /** A data directory the caller made and keeps: not removed at stop (a backup reads its key file). */
    dataDir?: string;
  } = {},
): Promise<TestService> {
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'blockyard-test-'));
  const shared = options.sharing;
  const [anvil, database] = shared
    ? [shared.anvil, shared.database]
    : await Promise.all([startTestAnvil(), createTestDatabase({ statementTimeoutMs: statementTimeoutOf(options.settings) })]);
  const chains = options.chains ??
    options.chainsFor?.(anvil.url) ?? [
      devnetChain(anvil.url),
      { chain: 'ethereum', network: 'mainnet', chain_id: 31337, upstreams: [{ url: anvil.url }] },
    ];
  for (const [name, content] of Object.entries(options.files ?? {})) writeFileSync(join(dataDir, name), content);
  const configFile = join(dataDir, 'blockyard.yaml');
  writeFileSync(configFile, stringify({ chains, ...options.settings }));
  // A start that fails (a bad setting in a test of it) leaves nothing running behind.
  const service = await (async () => {
    const config = loadConfig({
      env: {
        BLOCKYARD_CONFIG: configFile,
        BLOCKYARD_DATA_DIR: dataDir,
        PORT: '0',
        LOG_LEVEL: options.logLevel ?? 'silent',
        BLOCKYARD_ADMIN_TOKEN: adminTokenForTests,
        ...(options.roles ? { BLOCKYARD_ROLES: options.roles } : {}),
        ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
      },
      cwd: dataDir,
    });
    return await startService(config, { database, logDestination: options.logDestination });
  })().catch(async (error: unknown) => {
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    if (!shared) await Promise.all([anvil.stop(), database.close()]);
    throw error;
  });

  const admin: TestService['admin'] = async (method, path, body) => {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminTokenForTests}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };

  return {
    url: service.url,
    adminToken: adminTokenForTests,
    service,
    anvil,
    database,
    dataDir,
    admin,
    async createKey({ plan = 'enterprise', limits, scopes, environment = 'test' } = {}) {
      const account = await admin('POST', '/admin/accounts', { name: 'test', plan, ...(limits ? { limits } : {}) });
      if (account.status !== 201) throw new Error(`account creation failed: ${JSON.stringify(account.body)}`);
      const created = await admin('POST', `/admin/accounts/${account.body.id}/keys`, {
        name: 'test',
        environment,
        ...(scopes ? { scopes } : {}),
      });
      if (created.status !== 201) throw new Error(`key creation failed: ${JSON.stringify(created.body)}`);
      return { key: created.body.key, keyId: created.body.id, accountId: account.body.id };
    },
    rpc(key, body, path = '/v1/rpc/ethereum/devnet', headers = {}) {
      return fetch(`${service.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}), ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
    },
    async stop() {
      await service.stop('test finished');
      if (!shared) await Promise.all([anvil.stop(), database.close()]);
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Waits out the access log's flush interval (100 ms, src/observability/access-log.ts): request lines are then in the log. */
export function accessLogWritten(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 150));
}

/** The service opens its own pool with limits.statement_timeout_ms; a test's database is opened here, so it takes the setting here. */
function statementTimeoutOf(settings: Record<string, unknown> | undefined): number | undefined {
  const limits = settings?.limits as { statement_timeout_ms?: number } | undefined;
  return limits?.statement_timeout_ms;
}
