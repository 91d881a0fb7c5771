import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { addressRangeProblem } from '../core/address-ranges.ts';
import { parseCidr } from '../webhooks/private-destinations.ts';
import { parseCorsOrigins } from './cors-origins.ts';
import { buildLimits } from './limits-settings.ts';
import {
  type ChainConfig,
  type ChainEntry,
  type Config,
  canonicalErc4337,
  type GasSponsorshipConfig,
  type NftsConfig,
  type Settings,
  type TokensConfig,
  type WebhooksConfig,
} from './schema.ts';
import generatedValidator from './settings-validator.generated.js';
import { buildSponsorshipCaps } from './sponsorship-caps-settings.ts';

/** A setting that stops the start; the message names the setting and where it came from. */
export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    problem: string,
  ) {
    super(`invalid setting ${setting}: ${problem}`);
    this.name = 'ConfigError';
  }
}

/** Command-line flags the start command accepts, by their long name. */
export interface ConfigFlags {
  port?: string;
  host?: string;
  'data-dir'?: string;
  config?: string;
  'database-url'?: string;
  'redis-url'?: string;
  'log-level'?: string;
  mode?: string;
  roles?: string;
  'block-time'?: string;
  'shutdown-grace'?: string;
  demo?: boolean;
  join?: string;
}

type SettingKey =
  | Exclude<keyof Settings, 'devnet' | 'chains' | 'tokens' | 'nfts' | 'webhooks' | 'email' | 'dashboard' | 'gas' | 'limits'>
  | 'block_time_s';

/** Each top-level setting: its flag and its environment variable. */
const sources: Record<SettingKey, { flag?: keyof ConfigFlags; env?: string }> = {
  mode: { flag: 'mode', env: 'BLOCKYARD_MODE' },
  host: { flag: 'host', env: 'BLOCKYARD_HOST' },
  port: { flag: 'port', env: 'PORT' },
  data_dir: { flag: 'data-dir', env: 'BLOCKYARD_DATA_DIR' },
  database_url: { flag: 'database-url', env: 'DATABASE_URL' },
  redis_url: { flag: 'redis-url', env: 'REDIS_URL' },
  admin_token: { env: 'BLOCKYARD_ADMIN_TOKEN' },
  log_level: { flag: 'log-level', env: 'LOG_LEVEL' },
  roles: { flag: 'roles', env: 'BLOCKYARD_ROLES' },
  block_time_s: { flag: 'block-time', env: 'BLOCKYARD_BLOCK_TIME' },
  demo: { flag: 'demo', env: 'BLOCKYARD_DEMO' },
  join: { flag: 'join', env: 'BLOCKYARD_JOIN' },
  shutdown_grace_s: { flag: 'shutdown-grace', env: 'BLOCKYARD_SHUTDOWN_GRACE' },
  cors_origins: { env: 'BLOCKYARD_CORS_ORIGINS' },
  trust_proxy: { env: 'BLOCKYARD_TRUST_PROXY' },
  jwt_audience: { env: 'BLOCKYARD_JWT_AUDIENCE' },
  encryption_key: { env: 'BLOCKYARD_ENCRYPTION_KEY' },
  bundler_keys: { env: 'BLOCKYARD_BUNDLER_KEYS' },
  sponsor_key: { env: 'BLOCKYARD_SPONSOR_KEY' },
  metrics_require_admin_token: { env: 'BLOCKYARD_METRICS_REQUIRE_ADMIN_TOKEN' },
};

export const settingSources = sources;

const defaults = {
  mode: 'development',
  host: '127.0.0.1',
  port: 8080,
  data_dir: './.blockyard',
  log_level: 'info',
  roles: ['api', 'indexer', 'webhooks', 'bundler'],
  block_time_s: 1,
  demo: false,
  shutdown_grace_s: 10,
  cors_origins: [],
  trust_proxy: [],
  jwt_audience: 'blockyard',
} as const;

/**
 * The settings schema's validator, generated as code from the schema (scripts/generate-settings-validator.ts):
 * no schema library is loaded or compiled when the config loads, which every CLI command does.
 */
const validateSettings = generatedValidator as unknown as ValidateFunction<Settings>;

export interface LoadConfigInput {
  flags?: ConfigFlags;
  env?: Record<string, string | undefined>;
  cwd?: string;
}

/**
 * Builds the frozen config from flags > environment > YAML file > defaults.
 * This is the only module that reads `process.env`.
 */
export function loadConfig({ flags = {}, env = process.env, cwd = process.cwd() }: LoadConfigInput = {}): Config {
  const configFile = flags.config ?? nonEmpty(env.BLOCKYARD_CONFIG) ?? defaultConfigFile(cwd);
  const file = configFile ? readYaml(resolve(cwd, configFile)) : {};

  const raw: Record<string, unknown> = {};
  const origin: Record<string, string> = {};
  for (const [key, source] of Object.entries(sources) as [SettingKey, (typeof sources)[SettingKey]][]) {
    const fileValue = key === 'block_time_s' ? (file.devnet as Record<string, unknown> | undefined)?.block_time_s : file[key];
    const fromFlag = source.flag ? flags[source.flag] : undefined;
    const fromEnv = source.env ? nonEmpty(env[source.env]) : undefined;
    if (fromFlag !== undefined) {
      raw[key] = fromFlag;
      origin[key] = `--${source.flag}`;
    } else if (fromEnv !== undefined) {
      raw[key] = fromEnv;
      origin[key] = source.env as string;
    } else if (fileValue !== undefined) {
      raw[key] = fileValue;
      origin[key] = `${key === 'block_time_s' ? 'devnet.block_time_s' : key} (in ${configFile})`;
    } else if (key in defaults) {
      raw[key] = defaults[key as keyof typeof defaults];
      origin[key] = key;
    }
  }
  if (typeof raw.roles === 'string') raw.roles = raw.roles.split(',').map((role) => role.trim());
  // A comma-separated variable, or a single string in YAML (`cors_origins: "*"`).
  if (typeof raw.cors_origins === 'string') raw.cors_origins = raw.cors_origins.split(',').map((origin) => origin.trim());
  if (typeof raw.trust_proxy === 'string') raw.trust_proxy = raw.trust_proxy.split(',').map((entry) => entry.trim());

  for (const key of Object.keys(file)) {
    if (!(key in sources) && !fileOnlySections.has(key)) {
      throw new ConfigError(`${key} (in ${configFile})`, 'unknown setting');
    }
  }
  const settings: Record<string, unknown> = { ...raw, devnet: { block_time_s: raw.block_time_s } };
  delete settings.block_time_s;
  for (const section of fileOnlySections)
    if (section !== 'devnet' && file[section] !== undefined) settings[section] = file[section];

  if (!validateSettings(settings)) {
    throw settingError(validateSettings.errors?.[0], origin, configFile);
  }
  const chains = buildChains(settings, configFile ?? 'the config file');
  const cors = parseCorsOrigins(settings.cors_origins);
  if ('problem' in cors) throw new ConfigError(origin.cors_origins ?? 'cors_origins', cors.problem);
  const trustProxy = settings.trust_proxy ?? [];
  const untrustable = trustProxy.find((entry) => addressRangeProblem(entry) !== undefined);
  if (untrustable !== undefined) {
    throw new ConfigError(origin.trust_proxy ?? 'trust_proxy', `'${untrustable}': ${addressRangeProblem(untrustable)}`);
  }

  const { dataDir, port } = placeJoiningProcess(settings, origin, cwd);

  const config: Config = {
    mode: settings.mode,
    host: settings.host,
    port,
    dataDir,
    databaseUrl: settings.database_url,
    redisUrl: settings.redis_url,
    adminToken: settings.admin_token,
    logLevel: settings.log_level,
    roles: settings.roles,
    demo: settings.demo,
    join: settings.join !== undefined,
    shutdownGraceS: settings.shutdown_grace_s,
    corsOrigins: cors.origins,
    trustProxy,
    jwtAudience: settings.jwt_audience ?? 'blockyard',
    chains,
    tokens: buildTokens(settings, configFile, cwd),
    nfts: buildNfts(settings),
    webhooks: buildWebhooks(settings),
    email: { smtpUrl: settings.email?.smtp_url, from: settings.email?.from ?? 'Blockyard <blockyard@localhost>' },
    dashboard: {
      signup: settings.dashboard?.signup ?? (settings.mode === 'production' ? 'invite_only' : 'open'),
      publicUrl: settings.dashboard?.public_url?.replace(/\/$/, ''),
    },
    encryptionKey: settings.encryption_key?.toLowerCase(),
    metricsRequireAdminToken: settings.metrics_require_admin_token ?? settings.mode === 'production',
    bundlerKeys: settings.bundler_keys?.split(',') ?? [],
    gas: buildGas(settings, origin, configFile, cwd),
    limits: buildLimits(settings),
    configFile: configFile ? resolve(cwd, configFile) : undefined,
  };
  return deepFreeze(config);
}

/**
 * `--join DIR` names the running service's data directory, which becomes this process's too (its admin
 * token and dev key are read from there). Unless a port is set, a joining process listens on any free
 * port: the one it joins holds the default.
 */
function placeJoiningProcess(settings: Settings, origin: Record<string, string>, cwd: string): { dataDir: string; port: number } {
  const dataDir = resolve(cwd, settings.data_dir);
  if (settings.join === undefined) return { dataDir, port: settings.port };
  const joined = resolve(cwd, settings.join);
  const setting = origin.join ?? 'join';
  if (origin.data_dir !== 'data_dir' && dataDir !== joined) {
    throw new ConfigError(
      setting,
      `joins ${joined}, but ${origin.data_dir} names another data directory (${dataDir}); give one of them`,
    );
  }
  if (settings.demo) {
    throw new ConfigError(
      setting,
      'cannot go with --demo: the sample contracts are deployed by the service that runs the devnet',
    );
  }
  return { dataDir: joined, port: origin.port === 'port' ? 0 : settings.port };
}

/** Sections only the YAML file sets (no flag or variable). */
const fileOnlySections = new Set(['devnet', 'chains', 'tokens', 'nfts', 'webhooks', 'email', 'dashboard', 'gas', 'limits']);

/** One ETH: a paymaster deposit under this is worth a warning by default. */
const defaultDepositWarningWei = 10n ** 18n;

function buildGas(
  settings: Settings,
  origin: Record<string, string>,
  configFile: string | undefined,
  cwd: string,
): GasSponsorshipConfig {
  const gas = settings.gas ?? {};
  if (gas.sponsor_key_file !== undefined && settings.sponsor_key !== undefined) {
    throw new ConfigError(
      origin.sponsor_key ?? 'sponsor_key',
      `gas.sponsor_key_file (in ${configFile}) also names a sponsor key; give one of them`,
    );
  }
  // A relative key file is relative to the file that names it.
  const base = configFile ? dirname(resolve(cwd, configFile)) : cwd;
  return {
    sponsorKeyFile: gas.sponsor_key_file === undefined ? undefined : resolve(base, gas.sponsor_key_file),
    sponsorKey: settings.sponsor_key,
    depositWarningWei: gas.deposit_warning_wei === undefined ? defaultDepositWarningWei : BigInt(gas.deposit_warning_wei),
    sponsorshipCaps: buildSponsorshipCaps(gas.sponsorship_caps ?? {}),
  };
}

function buildTokens(settings: Settings, configFile: string | undefined, cwd: string): TokensConfig {
  const tokens = settings.tokens ?? {};
  const prices = [
    ...(tokens.prices ?? []).map((entry) => ({ ...entry, contract: entry.contract.toLowerCase() })),
    ...(tokens.price_feeds ?? []).map((entry) => ({
      ...entry,
      contract: entry.contract.toLowerCase(),
      aggregator: entry.aggregator.toLowerCase(),
    })),
  ];
  // A relative token list path is relative to the file that names it.
  const base = configFile ? dirname(resolve(cwd, configFile)) : cwd;
  return { prices, tokenList: tokens.token_list ? resolve(base, tokens.token_list) : undefined };
}

function buildNfts(settings: Settings): NftsConfig {
  const nfts = settings.nfts ?? {};
  const withSlash = (url: string) => (url.endsWith('/') ? url : `${url}/`);
  return {
    ipfsGateway: withSlash(nfts.ipfs_gateway ?? 'https://ipfs.io/ipfs/'),
    arweaveGateway: withSlash(nfts.arweave_gateway ?? 'https://arweave.net/'),
    metadataTimeoutMs: nfts.metadata_timeout_ms ?? 5000,
    metadataMaxBytes: nfts.metadata_max_bytes ?? 1024 * 1024,
  };
}

/** Variant A's retry schedule (design.md): 10 s, 1 min, 10 min, 1 h, 6 h. */
export const defaultRetryScheduleS = [10, 60, 600, 3600, 21600];

function buildWebhooks(settings: Settings): WebhooksConfig {
  const webhooks = settings.webhooks ?? {};
  return {
    retryScheduleS: webhooks.retry_schedule_s ?? defaultRetryScheduleS,
    timeoutMs: (webhooks.timeout_s ?? 15) * 1000,
    maxInFlightPerEndpoint: webhooks.max_in_flight_per_endpoint ?? 16,
    maxPayloadBytes: webhooks.max_payload_bytes ?? 256 * 1024,
    pendingPollMs: webhooks.pending_poll_ms ?? 250,
    replayMaxEvents: webhooks.replay_max_events ?? 10_000,
    replayPageEvents: webhooks.replay_page_events ?? 1000,
    privateDestinations: (webhooks.private_destinations ?? []).map((cidr, index) => {
      if (!parseCidr(cidr))
        throw new ConfigError(
          `webhooks.private_destinations[${index}]`,
          `${JSON.stringify(cidr)} is not a CIDR range (e.g. 10.0.0.0/8, fd00::/8)`,
        );
      return cidr.trim();
    }),
  };
}

function buildChains(settings: Settings, fileName: string): ChainConfig[] {
  const entries: ChainEntry[] = settings.chains ?? [{ embedded: true }];
  const seen = new Set<string>();
  let embeddedCount = 0;
  return entries.map((entry, index) => {
    const name = (field: string) => `chains[${index}].${field} (in ${fileName})`;
    const embedded = entry.embedded === true;
    if (embedded && ++embeddedCount > 1) throw new ConfigError(name('embedded'), 'only one embedded devnet is allowed');
    if (embedded && entry.upstreams) throw new ConfigError(name('upstreams'), 'the embedded devnet has no upstreams to set');
    if (!embedded) {
      for (const field of ['chain', 'network', 'upstreams'] as const) {
        if (entry[field] === undefined) throw new ConfigError(name(field), 'is required');
      }
    }
    const kind = entry.kind ?? 'evm';
    if (kind === 'evm' && !embedded && entry.chain_id === undefined) throw new ConfigError(name('chain_id'), 'is required');
    const chain = entry.chain ?? 'ethereum';
    const network = entry.network ?? 'devnet';
    const key = `${chain}/${network}`;
    if (seen.has(key)) throw new ConfigError(name('network'), `${key} is listed twice`);
    seen.add(key);
    const testnet = entry.testnet ?? (embedded || network !== 'mainnet');
    const devMethods = entry.dev_methods ?? embedded;
    if (devMethods && !testnet) throw new ConfigError(name('dev_methods'), 'is allowed on testnets only');
    return {
      chain,
      network,
      chainId: entry.chain_id ?? (embedded ? 31337 : 0),
      kind,
      testnet,
      nativeSymbol: entry.native_symbol ?? (kind === 'solana' ? 'SOL' : 'ETH'),
      embedded,
      upstreams: (entry.upstreams ?? []).map((upstream) => ({
        url: upstream.url,
        wsUrl: upstream.ws_url,
        timeoutMs: upstream.timeout_ms,
        maxConcurrency: upstream.max_concurrency,
        batchMaxSize: upstream.batch_max_size,
      })),
      finalityDepth: entry.finality_depth ?? (embedded ? 2 : 64),
      blockTimeS: entry.block_time_s ?? (embedded ? settings.devnet.block_time_s : 12),
      getLogsMaxRange: entry.get_logs_max_range ?? 10_000,
      devMethods,
      indexer: {
        enabled: kind === 'evm' && (entry.indexer?.enabled ?? embedded),
        startBlock: entry.indexer?.start_block ?? 0,
      },
      erc4337: {
        entryPointV06: entry.erc4337?.entry_point_v06 ?? canonicalErc4337.entryPointV06,
        entryPointV07: entry.erc4337?.entry_point_v07 ?? canonicalErc4337.entryPointV07,
        factoryV06: entry.erc4337?.factory_v06 ?? canonicalErc4337.factoryV06,
        factoryV07: entry.erc4337?.factory_v07 ?? canonicalErc4337.factoryV07,
        paymasterV06: entry.erc4337?.paymaster_v06,
        paymasterV07: entry.erc4337?.paymaster_v07,
      },
      bundler: {
        enabled: kind === 'evm' && (entry.bundler?.enabled ?? embedded),
        executorKeysFile: entry.bundler?.executor_keys_file,
        safeMode: entry.bundler?.safe_mode ?? true,
        maxBundleOps: entry.bundler?.max_bundle_ops ?? 50,
        minStakeWei: BigInt(entry.bundler?.min_stake_wei ?? '1000000000000000000'),
        minUnstakeDelayS: entry.bundler?.min_unstake_delay_s ?? 86_400,
      },
    } satisfies ChainConfig;
  });
}

function settingError(error: ErrorObject | undefined, origin: Record<string, string>, configFile?: string) {
  if (!error) return new ConfigError('config', 'is not valid');
  const path = error.instancePath.split('/').filter(Boolean);
  let setting: string;
  const top = path[0];
  if (top === 'chains') {
    setting = `chains${path
      .slice(1)
      .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
      .join('')}`;
    if (error.keyword === 'additionalProperties') setting += `.${String(error.params.additionalProperty)}`;
    setting += ` (in ${configFile})`;
  } else if (top === 'limits') {
    const extra = error.keyword === 'additionalProperties' ? [String(error.params.additionalProperty)] : [];
    setting = `${[...path, ...extra].join('.')} (in ${configFile})`;
  } else if (top === 'devnet') {
    setting = origin.block_time_s ?? 'devnet.block_time_s';
  } else if (top === undefined && error.keyword === 'additionalProperties') {
    setting = `${String(error.params.additionalProperty)} (in ${configFile})`;
  } else {
    setting = origin[top ?? ''] ?? top ?? 'config';
  }
  const allowed = error.keyword === 'enum' ? ` (${(error.params.allowedValues as string[]).join(', ')})` : '';
  const problem = error.keyword === 'additionalProperties' ? 'unknown setting' : `${error.message ?? 'is not valid'}${allowed}`;
  return new ConfigError(setting, problem);
}

/**
 * The YAML parser, loaded only when there is a file to read: most starts and CLI commands have none,
 * and loading it is a tenth of what a one-line admin command takes.
 */
function parseYaml(text: string): unknown {
  const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return parse(text);
}

function readYaml(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(path, `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    throw new ConfigError(path, `is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(path, 'must be a YAML mapping');
  return parsed as Record<string, unknown>;
}

function defaultConfigFile(cwd: string): string | undefined {
  return existsSync(resolve(cwd, 'blockyard.yaml')) ? 'blockyard.yaml' : undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
