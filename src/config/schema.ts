import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { type LimitsConfig, limitsSettingsSchema } from './limits-settings.ts';
import { type SponsorshipCaps, type SponsorshipCapsConfig, sponsorshipCapsSchema } from './sponsorship-caps-settings.ts';

// Plain JSON Schema objects (`as const`, their types derived by json-schema-to-ts at compile time): the
// config module loads in every CLI command, and a schema library costs a command more than its work.

export type { LimitsConfig, SponsorshipCapsConfig };

export const roles = ['api', 'indexer', 'webhooks', 'bundler'] as const;
export type Role = (typeof roles)[number];

export const chainKinds = ['evm', 'solana'] as const;
export type ChainKind = (typeof chainKinds)[number];

const upstreamSchema = {
  type: 'object',
  properties: {
    url: { type: 'string', pattern: '^https?://' },
    ws_url: { type: 'string', pattern: '^wss?://' },
    timeout_ms: { type: 'integer', minimum: 1, maximum: 600_000 },
    max_concurrency: { type: 'integer', minimum: 1, maximum: 4096 },
    batch_max_size: { type: 'integer', minimum: 1, maximum: 1000 },
  },
  required: ['url'],
  additionalProperties: false,
} as const satisfies JSONSchema;

const identifierSchema = { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$' } as const satisfies JSONSchema;

/** One chain/network entry of the YAML file's `chains:` list. */
export const chainEntrySchema = {
  type: 'object',
  properties: {
    embedded: { type: 'boolean' },
    chain: identifierSchema,
    network: identifierSchema,
    chain_id: { type: 'integer', minimum: 1 },
    kind: { type: 'string', enum: chainKinds },
    testnet: { type: 'boolean' },
    native_symbol: { type: 'string', minLength: 1, maxLength: 16 },
    upstreams: { type: 'array', items: upstreamSchema, minItems: 1 },
    finality_depth: { type: 'integer', minimum: 0, maximum: 10_000 },
    block_time_s: { type: 'number', exclusiveMinimum: 0, maximum: 3600 },
    get_logs_max_range: { type: 'integer', minimum: 1, maximum: 100_000_000 },
    dev_methods: { type: 'boolean' },
    indexer: {
      type: 'object',
      properties: {
        enabled: { type: 'boolean' },
        start_block: { type: 'integer', minimum: 0 },
      },
      additionalProperties: false,
    },
    /** ERC-4337 contracts of the network (default: the canonical addresses). */
    erc4337: {
      type: 'object',
      properties: {
        entry_point_v06: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
        entry_point_v07: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
        factory_v06: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
        factory_v07: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
        /** The VerifyingPaymaster the sponsor key signs for (the embedded devnet installs its own). */
        paymaster_v06: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
        paymaster_v07: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
      },
      additionalProperties: false,
    },
    bundler: {
      type: 'object',
      properties: {
        enabled: { type: 'boolean' },
        executor_keys_file: { type: 'string', minLength: 1 },
        safe_mode: { type: 'boolean' },
        max_bundle_ops: { type: 'integer', minimum: 1, maximum: 1000 },
        min_stake_wei: { type: 'string', pattern: '^[0-9]{1,78}$' },
        min_unstake_delay_s: { type: 'integer', minimum: 0, maximum: 31536000 },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const satisfies JSONSchema;
export type ChainEntry = FromSchema<typeof chainEntrySchema>;

const addressSchema = { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' } as const satisfies JSONSchema;
/** A token contract, or `native` for the chain's own coin (ETH on Ethereum). */
const priceContractSchema = { type: 'string', pattern: '^(0x[0-9a-fA-F]{40}|native)$' } as const satisfies JSONSchema;

/** YAML `tokens:` section: where USD prices and logos come from. */
const tokenSettingsSchema = {
  type: 'object',
  properties: {
    /** Fixed USD prices, e.g. for stablecoins or a devnet's sample token. */
    prices: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          chain: identifierSchema,
          network: identifierSchema,
          contract: priceContractSchema,
          usd: { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' },
        },
        required: ['chain', 'contract', 'usd'],
        additionalProperties: false,
      },
    },
    /** Chainlink-style aggregators (latestRoundData + decimals) on the same network as the token. */
    price_feeds: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          chain: identifierSchema,
          network: identifierSchema,
          contract: priceContractSchema,
          aggregator: addressSchema,
        },
        required: ['chain', 'contract', 'aggregator'],
        additionalProperties: false,
      },
    },
    /** A token list file (tokenlists.org format) for logos. */
    token_list: { type: 'string', minLength: 1 },
  },
  additionalProperties: false,
} as const satisfies JSONSchema;

/** YAML `nfts:` section: how NFT metadata is fetched. */
const nftSettingsSchema = {
  type: 'object',
  properties: {
    ipfs_gateway: { type: 'string', pattern: '^https?://' },
    arweave_gateway: { type: 'string', pattern: '^https?://' },
    metadata_timeout_ms: { type: 'integer', minimum: 100, maximum: 60_000 },
    metadata_max_bytes: { type: 'integer', minimum: 1024, maximum: 50 * 1024 * 1024 },
  },
  additionalProperties: false,
} as const satisfies JSONSchema;

/** YAML `webhooks:` section: how deliveries are made. */
const webhookSettingsSchema = {
  type: 'object',
  properties: {
    /** Seconds before each retry; its length is the number of retries (default Variant A's 10, 60, 600, 3600, 21600). */
    retry_schedule_s: { type: 'array', items: { type: 'number', minimum: 0, maximum: 604_800 }, minItems: 1, maxItems: 20 },
    /** Per attempt, for the whole exchange (default 15). */
    timeout_s: { type: 'number', exclusiveMinimum: 0, maximum: 60 },
    /** Requests in flight to one webhook's endpoint at most (default 16). */
    max_in_flight_per_endpoint: { type: 'integer', minimum: 1, maximum: 256 },
    /** Largest request body sent; bigger `data` fields are cut (default 262144). */
    max_payload_bytes: { type: 'integer', minimum: 4096, maximum: 10 * 1024 * 1024 },
    /** How often the pending-transaction feed is read (default 250). */
    pending_poll_ms: { type: 'integer', minimum: 20, maximum: 60_000 },
    /** Events one replay queues at most; past it the replay stops and answers where to go on (default 10000). */
    replay_max_events: { type: 'integer', minimum: 1, maximum: 1_000_000 },
    /** Chain events a replay reads and matches per page, in one transaction (default 1000). */
    replay_page_events: { type: 'integer', minimum: 1, maximum: 10_000 },
    /** Private address ranges (CIDR) webhooks may be sent to, in any mode: internal receivers (default none). */
    private_destinations: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 }, maxItems: 100 },
  },
  additionalProperties: false,
} as const satisfies JSONSchema;

/** YAML `email:` section: where operator notices (a paused webhook) go. */
const emailSettingsSchema = {
  type: 'object',
  properties: {
    smtp_url: { type: 'string', pattern: '^smtps?://' },
    from: { type: 'string', minLength: 3 },
  },
  additionalProperties: false,
} as const satisfies JSONSchema;

/** YAML `dashboard:` section: who may sign up, and the URL links in mails point at. */
const dashboardSettingsSchema = {
  type: 'object',
  properties: {
    /** `open` (default in development mode) or `invite_only` (default in production). */
    signup: { type: 'string', enum: ['open', 'invite_only'] },
    /** The dashboard's address as people reach it (default: the service's own URL). */
    public_url: { type: 'string', pattern: '^https?://[^/?#]+/?$' },
  },
  additionalProperties: false,
} as const satisfies JSONSchema;

/** YAML `gas:` section: gas sponsorship (the verifying paymaster's signer and deposit). */
const gasSettingsSchema = {
  type: 'object',
  properties: {
    /** A file holding the sponsor's private key (one 0x line, # comments); BLOCKYARD_SPONSOR_KEY also works. */
    sponsor_key_file: { type: 'string', minLength: 1 },
    /** A paymaster's EntryPoint deposit below this (wei, decimal) logs a warning (default 1 ETH). */
    deposit_warning_wei: { type: 'string', pattern: '^[0-9]{1,78}$' },
    /** USD an account of each plan may have sponsored per UTC day and in total (null: unlimited); accounts override them. */
    sponsorship_caps: {
      type: 'object',
      properties: {
        free: sponsorshipCapsSchema,
        growth: sponsorshipCapsSchema,
        enterprise: sponsorshipCapsSchema,
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const satisfies JSONSchema;

/** Every setting, as it stands after merging flags, environment, YAML and defaults (snake_case, as in YAML). */
export const settingsSchema = {
  type: 'object',
  properties: {
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
    devnet: {
      type: 'object',
      properties: { block_time_s: { type: 'number', exclusiveMinimum: 0, maximum: 3600 } },
      required: ['block_time_s'],
      additionalProperties: false,
    },
    chains: { type: 'array', items: chainEntrySchema },
    tokens: tokenSettingsSchema,
    nfts: nftSettingsSchema,
    webhooks: webhookSettingsSchema,
    email: emailSettingsSchema,
    dashboard: dashboardSettingsSchema,
    gas: gasSettingsSchema,
    limits: limitsSettingsSchema,
    /** The gas sponsor's private key (BLOCKYARD_SPONSOR_KEY; never logged). */
    sponsor_key: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' },
    /** Comma-separated private keys the bundler sends bundles from (never logged). */
    bundler_keys: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}(,0x[0-9a-fA-F]{64})*$' },
    /** 64 hex characters: the key webhook signing secrets are encrypted with at rest. */
    encryption_key: { type: 'string', pattern: '^[0-9a-fA-F]{64}$' },
    /** `GET /metrics` only with the admin token (default: on in production mode, off in development). */
    metrics_require_admin_token: { type: 'boolean' },
  },
  required: ['mode', 'host', 'port', 'data_dir', 'log_level', 'roles', 'demo', 'shutdown_grace_s', 'cors_origins', 'devnet'],
  additionalProperties: false,
} as const satisfies JSONSchema;
export type Settings = FromSchema<typeof settingsSchema>;

export interface UpstreamConfig {
  readonly url: string;
  readonly wsUrl?: string;
  /** Per-request timeout for this upstream (default 30000). */
  readonly timeoutMs?: number;
  /** Requests in flight to this upstream at most (default 64); more wait in a short queue or go elsewhere. */
  readonly maxConcurrency?: number;
  /** Quick calls that arrive together go to this upstream as one JSON-RPC batch of at most this many (default 20; 1: never). */
  readonly batchMaxSize?: number;
}

export interface ChainConfig {
  /** Path segment `{chain}`, e.g. `ethereum`. */
  readonly chain: string;
  /** Path segment `{network}`, e.g. `mainnet`, `devnet`. */
  readonly network: string;
  readonly chainId: number;
  readonly kind: ChainKind;
  readonly testnet: boolean;
  readonly nativeSymbol: string;
  /** The embedded anvil devnet: its upstream is filled in once anvil listens. */
  readonly embedded: boolean;
  readonly upstreams: readonly UpstreamConfig[];
  readonly finalityDepth: number;
  readonly blockTimeS: number;
  /** Widest eth_getLogs block range sent upstream in one call; wider ranges are split. */
  readonly getLogsMaxRange: number;
  readonly devMethods: boolean;
  readonly indexer: { readonly enabled: boolean; readonly startBlock: number };
  readonly erc4337: Erc4337Config;
  readonly bundler: BundlerConfig;
}

/** Canonical ERC-4337 deployments (design.md), the defaults of every EVM network. */
export const canonicalErc4337 = {
  entryPointV06: '0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789',
  entryPointV07: '0x0000000071727De22E5E9d8BAf0edAc6f37da032',
  factoryV06: '0x9406Cc6185a346906296840746125a0E44976454',
  factoryV07: '0x91E60e0613810449d098b0b5Ec8b51A0FE8c8985',
} as const;

export interface Erc4337Config {
  readonly entryPointV06: string;
  readonly entryPointV07: string;
  readonly factoryV06: string;
  readonly factoryV07: string;
  /** The VerifyingPaymaster of each EntryPoint, when the network has one (the embedded devnet's is computed). */
  readonly paymasterV06?: string;
  readonly paymasterV07?: string;
}

export interface BundlerConfig {
  readonly enabled: boolean;
  /** A file of executor private keys (one per line); BLOCKYARD_BUNDLER_KEYS also works. Devnet default: anvil's #1-#3. */
  readonly executorKeysFile?: string;
  /** ERC-7562 rules checked from traces (default true). */
  readonly safeMode: boolean;
  readonly maxBundleOps: number;
  /** ERC-7562 SREP-010: an entity with at least this stake and unstake delay counts as staked (default 1 ETH, 1 day). */
  readonly minStakeWei: bigint;
  readonly minUnstakeDelayS: number;
}

/** Where a token's USD price comes from: a fixed value or an on-chain aggregator. */
export interface TokenPriceConfig {
  readonly chain: string;
  /** Absent: every network of the chain. */
  readonly network?: string;
  /** Lower-case. */
  readonly contract: string;
  readonly usd?: string;
  readonly aggregator?: string;
}

export interface TokensConfig {
  readonly prices: readonly TokenPriceConfig[];
  readonly tokenList?: string;
}

export interface NftsConfig {
  /** Base URL that `ipfs://CID/path` is appended to, ending in '/'. */
  readonly ipfsGateway: string;
  readonly arweaveGateway: string;
  readonly metadataTimeoutMs: number;
  readonly metadataMaxBytes: number;
}

export interface WebhooksConfig {
  readonly retryScheduleS: readonly number[];
  readonly timeoutMs: number;
  readonly maxInFlightPerEndpoint: number;
  readonly maxPayloadBytes: number;
  readonly pendingPollMs: number;
  readonly replayMaxEvents: number;
  readonly replayPageEvents: number;
  /** CIDR ranges (validated) whose private addresses webhooks may go to. */
  readonly privateDestinations: readonly string[];
}

export interface EmailConfig {
  readonly smtpUrl?: string;
  readonly from: string;
}

export interface DashboardConfig {
  readonly signup: 'open' | 'invite_only';
  /** Origin of the dashboard as people reach it, no trailing slash; absent: the service's own URL. */
  readonly publicUrl?: string;
}

/** Gas sponsorship: who signs for the verifying paymasters, and when their deposit is low. */
export interface GasSponsorshipConfig {
  /** `gas.sponsor_key_file`: read at start, one key. */
  readonly sponsorKeyFile?: string;
  /** BLOCKYARD_SPONSOR_KEY (never logged). */
  readonly sponsorKey?: string;
  readonly depositWarningWei: bigint;
  /** `gas.sponsorship_caps`: each plan's operator caps on what an account may have sponsored. */
  readonly sponsorshipCaps: SponsorshipCaps;
}

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
  readonly chains: readonly ChainConfig[];
  readonly tokens: TokensConfig;
  readonly nfts: NftsConfig;
  readonly webhooks: WebhooksConfig;
  readonly email: EmailConfig;
  readonly dashboard: DashboardConfig;
  /** Executor keys of every bundler (BLOCKYARD_BUNDLER_KEYS); a network's `executor_keys_file` comes first. */
  readonly bundlerKeys: readonly string[];
  readonly gas: GasSponsorshipConfig;
  readonly limits: LimitsConfig;
  /** Given by setting (hex); absent means generated once into `<dataDir>/encryption-key`. */
  readonly encryptionKey?: string;
  /** `GET /metrics` answers 401 without `Authorization: Bearer <admin token>`. */
  readonly metricsRequireAdminToken: boolean;
  /** Where the YAML file was read from, if any. */
  readonly configFile?: string;
}
