import type { FromSchema } from 'json-schema-to-ts';
import { type ChainConfig, chainEntrySchema } from './chain-settings.ts';
import { type DashboardConfig, dashboardSettingsSchema } from './dashboard-settings.ts';
import { type EmailConfig, emailSettingsSchema } from './email-settings.ts';
import { type GasSponsorshipConfig, gasSettingsSchema } from './gas-settings.ts';
import { closedObject } from './json-schema-parts.ts';
import { type LimitsConfig, limitsSettingsSchema } from './limits-settings.ts';
import { type NftsConfig, nftSettingsSchema } from './nft-settings.ts';
import { type SpamConfig, spamSettingsSchema } from './spam-settings.ts';
import { type TokensConfig, tokenSettingsSchema } from './token-settings.ts';
import { type TracingConfig, tracingSettingsSchema } from './tracing-settings.ts';
import { type WebhooksConfig, webhookSettingsSchema } from './webhook-settings.ts';

// Plain JSON Schema objects (their types derived by json-schema-to-ts at compile time): the config
// module loads in every CLI command, and a schema library costs a command more than its work. Each
// YAML section's schema, typed config and builder is in its own `*-settings.ts` beside this file.

export const roles = ['api', 'indexer', 'webhooks', 'bundler'] as const;
export type Role = (typeof roles)[number];

/** Every setting, as it stands after merging flags, environment, YAML and defaults (snake_case, as in YAML). */
export const settingsSchema = closedObject(
  {
    mode: { type: 'string', enum: ['development', 'production'] },
    host: { type: 'string', minLength: 1 },
    port: { type: 'integer', minimum: 0, maximum: 65535 },
    data_dir: { type: 'string', minLength: 1 },
    database_url: { type: 'string', pattern: '^postgres(ql)?://' },
    redis_url: { type: 'string', pattern: '^rediss?://' },
    admin_token: { type: 'string', minLength: 16 },
    log_level: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    roles: { type: 'array', items: { type: 'string', enum: roles }, minItems: 1, uniqueItems: true },
    demo: { type: 'boolean' },
    join: { type: 'string', minLength: 1 },
    shutdown_grace_s: { type: 'number', minimum: 0, maximum: 3600 },
    cors_origins: { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true },
    /** Addresses or CIDR ranges of the proxies whose X-Forwarded-For is believed (src/http/client-address.ts). */
    trust_proxy: { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true },
    /** The `aud` a key's signed requests (JWT) must carry. */
    jwt_audience: { type: 'string', minLength: 1 },
    /** Answers at least this many bytes long are compressed for clients that accept gzip or br; 0: never. */
    compress_min_bytes: { type: 'integer', minimum: 0, maximum: 1_073_741_824 },
    devnet: closedObject({ block_time_s: { type: 'number', exclusiveMinimum: 0, maximum: 3600 } }, ['block_time_s']),
    chains: { type: 'array', items: chainEntrySchema },
    /** What a node needs to answer /healthz with 200: `networks` (`chain/network`; default every configured one). */
    readiness: closedObject({
      networks: {
        type: 'array',
        items: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}/[a-z0-9][a-z0-9-]{0,62}$' },
        uniqueItems: true,
      },
    }),
    tokens: tokenSettingsSchema,
    nfts: nftSettingsSchema,
    spam: spamSettingsSchema,
    webhooks: webhookSettingsSchema,
    email: emailSettingsSchema,
    dashboard: dashboardSettingsSchema,
    gas: gasSettingsSchema,
    limits: limitsSettingsSchema,
    tracing: tracingSettingsSchema,
    /** The gas sponsor's private key (BLOCKYARD_SPONSOR_KEY; never logged). */
    sponsor_key: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' },
    /** Comma-separated private keys the bundler sends bundles from (never logged). */
    bundler_keys: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}(,0x[0-9a-fA-F]{64})*$' },
    /** 64 hex characters: the key webhook signing secrets are encrypted with at rest. */
    encryption_key: { type: 'string', pattern: '^[0-9a-fA-F]{64}$' },
    /** `GET /metrics` only with the admin token (default: on in production mode, off in development). */
    metrics_require_admin_token: { type: 'boolean' },
  },
  ['mode', 'host', 'port', 'data_dir', 'log_level', 'roles', 'demo', 'shutdown_grace_s', 'cors_origins', 'devnet'],
);
export type Settings = FromSchema<typeof settingsSchema>;

export interface Config {
  readonly mode: 'development' | 'production';
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly databaseUrl?: string;
  readonly redisUrl?: string;
  /** Given by setting; absent means generated once into `<dataDir>/admin-token`. */
  readonly adminToken?: string;
  readonly logLevel: Settings['log_level'];
  readonly roles: readonly Role[];
  /** Deploy the sample contracts and transfers on the embedded devnet (`--demo`). */
  readonly demo: boolean;
  /**
   * Run beside the service already running on `dataDir` (`--join DIR`): use its embedded Postgres and
   * its embedded devnet instead of starting them (src/service/join-running-service.ts).
   */
  readonly join: boolean;
  /** On SIGTERM/SIGINT, how long requests in flight may take before their connections are closed. */
  readonly shutdownGraceS: number;
  /** Origins (`scheme://host[:port]`) browsers may call /v1 from, or `['*']`; empty: CORS is off. */
  readonly corsOrigins: readonly string[];
  /** Proxies (addresses, CIDR ranges) whose X-Forwarded-For hop is believed; empty: the socket's address is the client's. */
  readonly trustProxy: readonly string[];
  /** The audience a key's signed requests (JWT) must name. */
  readonly jwtAudience: string;
  /** Answers at least this many bytes long go out compressed to clients that accept it; 0: never. */
  readonly compressMinBytes: number;
  readonly chains: readonly ChainConfig[];
  /** The networks (`chain/network`) whose upstreams must answer for /healthz to say ready. */
  readonly readyNetworks: readonly string[];
  readonly tokens: TokensConfig;
  readonly nfts: NftsConfig;
  /** Operator spam lists and scam patterns (docs/spam.md); absent: none. */
  readonly spam?: SpamConfig;
  readonly webhooks: WebhooksConfig;
  readonly email: EmailConfig;
  readonly dashboard: DashboardConfig;
  /** Executor keys of every bundler (BLOCKYARD_BUNDLER_KEYS); a network's `executor_keys_file` comes first. */
  readonly bundlerKeys: readonly string[];
  readonly gas: GasSponsorshipConfig;
  readonly limits: LimitsConfig;
  /** OpenTelemetry traces; undefined: off (the default), nothing of the SDK is loaded. */
  readonly tracing?: TracingConfig;
  /** Given by setting (hex); absent means generated once into `<dataDir>/encryption-key`. */
  readonly encryptionKey?: string;
  /** `GET /metrics` answers 401 without `Authorization: Bearer <admin token>`. */
  readonly metricsRequireAdminToken: boolean;
  /** Where the YAML file was read from, if any. */
  readonly configFile?: string;
}
