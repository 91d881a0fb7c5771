import { ConfigError } from './config-error.ts';
import type { Settings } from './schema.ts';

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

/** Sections only the YAML file sets (no flag or variable). */
const fileOnlySections = new Set([
  'devnet',
  'chains',
  'readiness',
  'tokens',
  'nfts',
  'spam',
  'webhooks',
  'email',
  'dashboard',
  'gas',
  'limits',
  'tracing',
]);

type SettingKey =
  | Exclude<
      keyof Settings,
      | 'devnet'
      | 'chains'
      | 'readiness'
      | 'tokens'
      | 'nfts'
      | 'spam'
      | 'webhooks'
      | 'email'
      | 'dashboard'
      | 'gas'
      | 'limits'
      | 'tracing'
    >
  | 'block_time_s';

interface SettingSource {
  readonly flag?: keyof ConfigFlags;
  readonly env?: string;
}

/** Each top-level setting: its flag and its environment variable. */
export const settingSources: Readonly<Record<SettingKey, SettingSource>> = {
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
  compress_min_bytes: { env: 'BLOCKYARD_COMPRESS_MIN_BYTES' },
  encryption_key: { env: 'BLOCKYARD_ENCRYPTION_KEY' },
  bundler_keys: { env: 'BLOCKYARD_BUNDLER_KEYS' },
  sponsor_key: { env: 'BLOCKYARD_SPONSOR_KEY' },
  metrics_require_admin_token: { env: 'BLOCKYARD_METRICS_REQUIRE_ADMIN_TOKEN' },
};

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
  compress_min_bytes: 2048,
} as const;

export interface GatheredSettings {
  /** Every setting, not yet validated, in the shape of `settingsSchema`. */
  readonly settings: Record<string, unknown>;
  /** Where each top-level setting came from: its flag, variable, `key (in file)`, or its bare name for a default. */
  readonly origin: Record<string, string>;
}

/** Each setting from flags > environment > YAML file > defaults; the file's sections as they are. */
export function gatherSettings(input: {
  file: Record<string, unknown>;
  flags: ConfigFlags;
  env: Record<string, string | undefined>;
  configFile: string | undefined;
}): GatheredSettings {
  const { file, flags, env, configFile } = input;
  const raw: Record<string, unknown> = {};
  const origin: Record<string, string> = {};
  for (const [key, source] of Object.entries(settingSources) as [SettingKey, SettingSource][]) {
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
    if (!(key in settingSources) && !fileOnlySections.has(key)) {
      throw new ConfigError(`${key} (in ${configFile})`, 'unknown setting');
    }
  }
  const settings: Record<string, unknown> = { ...raw, devnet: { block_time_s: raw.block_time_s } };
  delete settings.block_time_s;
  for (const section of fileOnlySections)
    if (section !== 'devnet' && file[section] !== undefined) settings[section] = file[section];
  return { settings, origin };
}

export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
