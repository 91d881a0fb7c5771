import { type Static, Type } from 'typebox';

/** A string enum as plain JSON Schema `enum` (clearer validation messages than a union of literals). */
export const StringEnum = <const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

export const roles = ['api', 'indexer', 'webhooks', 'bundler'] as const;
export type Role = (typeof roles)[number];

export const chainKinds = ['evm', 'solana'] as const;
export type ChainKind = (typeof chainKinds)[number];

const Upstream = Type.Object(
  {
    url: Type.String({ pattern: '^https?://' }),
    ws_url: Type.Optional(Type.String({ pattern: '^wss?://' })),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 600_000 })),
    max_concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 4096 })),
    batch_max_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  { additionalProperties: false },
);

const Identifier = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' });

/** One chain/network entry of the YAML file's `chains:` list. */
export const ChainEntry = Type.Object(
  {
    embedded: Type.Optional(Type.Boolean()),
    chain: Type.Optional(Identifier),
    network: Type.Optional(Identifier),
    chain_id: Type.Optional(Type.Integer({ minimum: 1 })),
    kind: Type.Optional(StringEnum(chainKinds)),
    testnet: Type.Optional(Type.Boolean()),
    native_symbol: Type.Optional(Type.String({ minLength: 1, maxLength: 16 })),
    upstreams: Type.Optional(Type.Array(Upstream, { minItems: 1 })),
    finality_depth: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
    block_time_s: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 3600 })),
    get_logs_max_range: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000_000 })),
    dev_methods: Type.Optional(Type.Boolean()),
    indexer: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(Type.Boolean()),
          start_block: Type.Optional(Type.Integer({ minimum: 0 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ChainEntry = Static<typeof ChainEntry>;

const Address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' });
const PriceTarget = {
  chain: Identifier,
  network: Type.Optional(Identifier),
  contract: Address,
};

/** YAML `tokens:` section: where USD prices and logos come from. */
export const TokenSettings = Type.Object(
  {
    /** Fixed USD prices, e.g. for stablecoins or a devnet's sample token. */
    prices: Type.Optional(
      Type.Array(
        Type.Object({ ...PriceTarget, usd: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' }) }, { additionalProperties: false }),
      ),
    ),
    /** Chainlink-style aggregators (latestRoundData + decimals) on the same network as the token. */
    price_feeds: Type.Optional(Type.Array(Type.Object({ ...PriceTarget, aggregator: Address }, { additionalProperties: false }))),
    /** A token list file (tokenlists.org format) for logos. */
    token_list: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

/** YAML `nfts:` section: how NFT metadata is fetched. */
export const NftSettings = Type.Object(
  {
    ipfs_gateway: Type.Optional(Type.String({ pattern: '^https?://' })),
    arweave_gateway: Type.Optional(Type.String({ pattern: '^https?://' })),
    metadata_timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 60_000 })),
    metadata_max_bytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 50 * 1024 * 1024 })),
  },
  { additionalProperties: false },
);

/** Every setting, as it stands after merging flags, environment, YAML and defaults (snake_case, as in YAML). */
export const SettingsSchema = Type.Object(
  {
    mode: StringEnum(['development', 'production'] as const),
    host: Type.String({ minLength: 1 }),
    port: Type.Integer({ minimum: 0, maximum: 65535 }),
    data_dir: Type.String({ minLength: 1 }),
    database_url: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
    redis_url: Type.Optional(Type.String({ pattern: '^rediss?://' })),
    admin_token: Type.Optional(Type.String({ minLength: 16 })),
    log_level: StringEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
    roles: Type.Array(StringEnum(roles), { minItems: 1, uniqueItems: true }),
    demo: Type.Boolean(),
    shutdown_grace_s: Type.Number({ minimum: 0, maximum: 3600 }),
    cors_origins: Type.Array(Type.String({ minLength: 1 }), { uniqueItems: true }),
    devnet: Type.Object({ block_time_s: Type.Number({ exclusiveMinimum: 0, maximum: 3600 }) }, { additionalProperties: false }),
    chains: Type.Optional(Type.Array(ChainEntry)),
    tokens: Type.Optional(TokenSettings),
    nfts: Type.Optional(NftSettings),
  },
  { additionalProperties: false },
);
export type Settings = Static<typeof SettingsSchema>;

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
  /** On SIGTERM/SIGINT, how long requests in flight may take before their connections are closed. */
  readonly shutdownGraceS: number;
  /** Origins (`scheme://host[:port]`) browsers may call /v1 from, or `['*']`; empty: CORS is off. */
  readonly corsOrigins: readonly string[];
  readonly chains: readonly ChainConfig[];
  readonly tokens: TokensConfig;
  readonly nfts: NftsConfig;
  /** Where the YAML file was read from, if any. */
  readonly configFile?: string;
}
