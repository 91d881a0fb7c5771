import { resolve } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { addressRangeProblem } from '../core/address-ranges.ts';
import { buildChains, type ChainConfig } from './chain-settings.ts';
import { ConfigError } from './config-error.ts';
import { defaultConfigFile, readConfigFile } from './config-file.ts';
import { parseCorsOrigins } from './cors-origins.ts';
import { buildDashboard } from './dashboard-settings.ts';
import { buildEmail } from './email-settings.ts';
import { buildGas } from './gas-settings.ts';
import { buildLimits } from './limits-settings.ts';
import { buildNfts } from './nft-settings.ts';
import { refuseOddNumbers } from './numbers-as-written.ts';
import type { Config, Settings } from './schema.ts';
import { settingError } from './setting-error.ts';
import { type ConfigFlags, gatherSettings, nonEmpty } from './setting-sources.ts';
import generatedValidator from './settings-validator.generated.js';
import { buildSpam } from './spam-settings.ts';
import { buildTokens } from './token-settings.ts';
import { buildTracing } from './tracing-settings.ts';
import { buildWebhooks } from './webhook-settings.ts';

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
  const file = configFile ? readConfigFile(resolve(cwd, configFile)) : {};
  const { settings, origin } = gatherSettings({ file, flags, env, configFile });
  // The validator coerces in place: what was written is kept to judge the numbers it made of text.
  const written = structuredClone(settings);
  if (!validateSettings(settings)) {
    throw settingError(validateSettings.errors?.[0], origin, configFile);
  }
  refuseOddNumbers(settings, written, origin, configFile);
  const chains = buildChains(settings.chains, settings.devnet.block_time_s, configFile ?? 'the config file');
  const readyNetworks = buildReadyNetworks(settings.readiness?.networks, chains, configFile ?? 'the config file');
  const cors = parseCorsOrigins(settings.cors_origins);
  if ('problem' in cors) throw new ConfigError(origin.cors_origins ?? 'cors_origins', cors.problem);
  const trustProxy = settings.trust_proxy ?? [];
  const untrustable = trustProxy.find((entry) => addressRangeProblem(entry) !== undefined);
  if (untrustable !== undefined) {
    throw new ConfigError(origin.trust_proxy ?? 'trust_proxy', `'${untrustable}': ${addressRangeProblem(untrustable)}`);
  }

  for (const name of ['database_url', 'redis_url'] as const) {
    // The schema checks the scheme only: a port past 65535 or an unencoded '#' in the password failed
    // later as a bare "Invalid URL". The value is not echoed: it may hold a password.
    const url = settings[name];
    if (url !== undefined && !URL.canParse(url)) {
      throw new ConfigError(
        origin[name] ?? name,
        'is not a valid URL: check the host and the port (at most 65535), and percent-encode characters such as @ : / # ? in the user and password',
      );
    }
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
    compressMinBytes: settings.compress_min_bytes ?? 2048,
    chains,
    readyNetworks,
    tokens: buildTokens(settings.tokens, configFile, cwd),
    nfts: buildNfts(settings.nfts),
    spam: buildSpam(settings.spam),
    webhooks: buildWebhooks(settings.webhooks),
    email: buildEmail(settings.email),
    dashboard: buildDashboard(settings.dashboard, settings.mode),
    encryptionKey: settings.encryption_key?.toLowerCase(),
    metricsRequireAdminToken: settings.metrics_require_admin_token ?? settings.mode === 'production',
    bundlerKeys: settings.bundler_keys?.split(',') ?? [],
    gas: buildGas(settings.gas, { sponsorKey: settings.sponsor_key, origin: origin.sponsor_key, configFile, cwd }),
    limits: buildLimits(settings.limits),
    tracing: buildTracing(settings.tracing, env, configFile ?? 'the config file'),
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

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** `readiness.networks`, each a configured network; absent: every network. */
function buildReadyNetworks(listed: readonly string[] | undefined, chains: readonly ChainConfig[], fileName: string): string[] {
  const configured = chains.map((chain) => `${chain.chain}/${chain.network}`);
  if (listed === undefined) return configured;
  const unknown = listed.find((network) => !configured.includes(network));
  if (unknown !== undefined) {
    throw new ConfigError(
      `readiness.networks (in ${fileName})`,
      `'${unknown}' is not a configured network (configured: ${configured.join(', ')})`,
    );
  }
  return [...listed];
}

/**
 * The passphrase `blockyard backup` and `restore` seal and open files with: BLOCKYARD_BACKUP_PASSPHRASE
 * only (never a flag, which `ps` would show, and never prompted for, so both run unattended).
 * Not part of the config: the service never needs it.
 */
export function readBackupPassphrase(env: Record<string, string | undefined> = process.env): string | undefined {
  return nonEmpty(env.BLOCKYARD_BACKUP_PASSPHRASE);
}
