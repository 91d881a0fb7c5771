import type { FromSchema } from 'json-schema-to-ts';
import { ConfigError } from './config-error.ts';
import {
  addressSchema,
  closedObject,
  httpUrlSchema,
  identifierSchema,
  integerIn,
  uint256StringSchema,
} from './json-schema-parts.ts';
import {
  canonicalMulticall3,
  type FeeModel,
  type FinalityModel,
  feeModels,
  finalityModels,
  type NetworkPreset,
  presetFor,
} from './network-presets.ts';

export const chainKinds = ['evm', 'solana'] as const;
export type ChainKind = (typeof chainKinds)[number];

export const upstreamTiers = ['primary', 'fallback'] as const;
export type UpstreamTier = (typeof upstreamTiers)[number];
export const cuTableNames = ['alchemy', 'quicknode', 'infura', 'flat'] as const;
export type CuTableName = (typeof cuTableNames)[number];

/** A JSON-RPC method name, or a pattern with `*` (`trace_*`, `debug_*`). */
const methodPatternSchema = { type: 'string', pattern: '^[A-Za-z0-9_*]{1,100}$' } as const;

const upstreamSchema = closedObject(
  {
    url: httpUrlSchema,
    ws_url: { type: 'string', pattern: '^wss?://' },
    /** Shown in logs, metrics and /admin/chains instead of the host (a URL may hold an API key). */
    name: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$' },
    timeout_ms: integerIn(1, 600_000),
    max_concurrency: integerIn(1, 4096),
    batch_max_size: integerIn(1, 1000),
    /** Ask for gzip-compressed answers (default: yes, unless the URL's host is a loopback address). */
    gzip: { type: 'boolean' },
    tier: { type: 'string', enum: upstreamTiers },
    rps: integerIn(1, 1_000_000),
    cu_per_s: integerIn(1, 100_000_000),
    cu_table: { type: 'string', enum: cuTableNames },
    methods: closedObject({
      allow: { type: 'array', items: methodPatternSchema, maxItems: 1000 },
      deny: { type: 'array', items: methodPatternSchema, maxItems: 1000 },
    }),
    archive: { type: 'boolean' },
    recent_blocks: integerIn(1, 10_000_000),
    get_logs_max_range: integerIn(1, 100_000_000),
  },
  ['url'],
);

/** One chain/network entry of the YAML file's `chains:` list. */
export const chainEntrySchema = closedObject({
  embedded: { type: 'boolean' },
  chain: identifierSchema,
  network: identifierSchema,
  /** Exact in a JS number (and below EIP-2294's bound): a larger id could match no node's eth_chainId. */
  chain_id: integerIn(1, Number.MAX_SAFE_INTEGER),
  kind: { type: 'string', enum: chainKinds },
  testnet: { type: 'boolean' },
  native_symbol: { type: 'string', minLength: 1, maxLength: 16 },
  upstreams: { type: 'array', items: upstreamSchema, minItems: 1 },
  finality_depth: integerIn(0, 1_000_000),
  /** `tags`: the node's `finalized`/`safe` blocks (the depth only as fallback); `depth`: `finality_depth` alone. */
  finality: { type: 'string', enum: finalityModels },
  fee_model: { type: 'string', enum: feeModels },
  /** Polygon PoS: the smallest priority fee its nodes accept (wei, decimal string). */
  min_priority_fee_wei: uint256StringSchema,
  max_transaction_bytes: integerIn(100, 100_000_000),
  multicall3: addressSchema,
  block_time_s: { type: 'number', exclusiveMinimum: 0, maximum: 3600 },
  get_logs_max_range: integerIn(1, 100_000_000),
  /** An upstream this many blocks behind the best head gets no reads while others are caught up, and is reported lagging. */
  max_lag_blocks: integerIn(1, 100_000),
  /** How often each upstream's head is polled (also how soon a node that stopped answering is noticed). */
  head_poll_ms: integerIn(250, 600_000),
  /** Solana: the genesis hash every upstream must report (default: known for solana mainnet, devnet, testnet). */
  genesis_hash: { type: 'string', pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$' },
  dev_methods: { type: 'boolean' },
  indexer: closedObject({ enabled: { type: 'boolean' }, start_block: integerIn(0, Number.MAX_SAFE_INTEGER) }),
  /** ERC-4337 contracts of the network (default: the canonical addresses). */
  erc4337: closedObject({
    entry_point_v06: addressSchema,
    entry_point_v07: addressSchema,
    entry_point_v08: addressSchema,
    factory_v06: addressSchema,
    factory_v07: addressSchema,
    factory_v08: addressSchema,
    /** The VerifyingPaymaster the sponsor key signs for (the embedded devnet installs its own). */
    paymaster_v06: addressSchema,
    paymaster_v07: addressSchema,
    paymaster_v08: addressSchema,
  }),
  bundler: closedObject({
    enabled: { type: 'boolean' },
    executor_keys_file: { type: 'string', minLength: 1 },
    safe_mode: { type: 'boolean' },
    max_bundle_ops: integerIn(1, 1000),
    /** Pending ops one sender may have with safe_mode false (safe mode: ERC-7562's 4). */
    max_pending_ops_per_sender: integerIn(1, 10000),
    min_stake_wei: uint256StringSchema,
    min_unstake_delay_s: integerIn(0, 31536000),
    /** The EntryPoint versions the bundler serves, in the order eth_supportedEntryPoints lists them. */
    entry_points: {
      type: 'array',
      items: { type: 'string', enum: ['0.6', '0.7', '0.8'] },
      minItems: 1,
      uniqueItems: true,
    },
  }),
});
export type ChainEntry = FromSchema<typeof chainEntrySchema>;

export interface UpstreamConfig {
  readonly url: string;
  readonly wsUrl?: string;
  /** The label of logs, metrics and status (default: the URL's host and port, never its path or query). */
  readonly name?: string;
  /** `fallback` upstreams serve only when no primary can (default `primary`). */
  readonly tier?: UpstreamTier;
  /** Calls per second this upstream may receive (its plan's limit); absent: learnt from its 429s only. */
  readonly rps?: number;
  /** Compute units (credits) per second, counted with `cuTable`. */
  readonly cuPerS?: number;
  /** Whose compute-unit table prices a call for `cuPerS` (default `flat`: one per call). */
  readonly cuTable?: CuTableName;
  /** Methods this upstream serves: `allow` (absent: all) minus `deny`; `*` matches any run of characters. */
  readonly methods?: { readonly allow?: readonly string[]; readonly deny?: readonly string[] };
  /** false: the node keeps only the last `recentBlocks` blocks of state (default true). */
  readonly archive?: boolean;
  /** Blocks of state a non-archive node keeps (default 128, geth's). */
  readonly recentBlocks?: number;
  /** The widest eth_getLogs range this upstream takes, when known beforehand (else learnt from its errors). */
  readonly getLogsMaxRange?: number;
  /** Per-request timeout for this upstream (default 30000). */
  readonly timeoutMs?: number;
  /** Requests in flight to this upstream at most (default 64); more wait in a short queue or go elsewhere. */
  readonly maxConcurrency?: number;
  /** Quick calls that arrive together go to this upstream as one JSON-RPC batch of at most this many (default 20; 1: never). */
  readonly batchMaxSize?: number;
  /** Ask it for gzip-compressed answers (default: yes, unless its host is a loopback address). */
  readonly gzip?: boolean;
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
  /** Blocks below the head from which a block is final (with `finality: 'tags'`, until the node reports its tags). */
  readonly finalityDepth: number;
  readonly finality: FinalityModel;
  readonly feeModel: FeeModel;
  /** The smallest priority fee the chain's nodes accept (Polygon PoS), wei. */
  readonly minPriorityFeeWei?: bigint;
  /** The largest signed transaction the chain's nodes accept, in bytes. */
  readonly maxTransactionBytes: number;
  readonly multicall3: string;
  readonly blockTimeS: number;
  /** Widest eth_getLogs block range sent upstream in one call; wider ranges are split. */
  readonly getLogsMaxRange: number;
  /** Blocks (slots on Solana) behind the best head from which an upstream counts as lagging. */
  readonly maxLagBlocks: number;
  /** Each upstream's head poll interval; undefined: the block time, within 250-1000 ms. */
  readonly headPollMs?: number;
  /** Solana: the genesis hash upstreams must report; undefined: the first verified upstream's, which the others must match. */
  readonly genesisHash?: string;
  readonly devMethods: boolean;
  /** `startBlock` undefined: the head at the index's first start (a real network without `start_block`). */
  readonly indexer: { readonly enabled: boolean; readonly startBlock: number | undefined };
  readonly erc4337: Erc4337Config;
  readonly bundler: BundlerConfig;
}

/** Canonical ERC-4337 deployments (design.md), the defaults of every EVM network. */
export const canonicalErc4337 = {
  entryPointV06: '0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789',
  entryPointV07: '0x0000000071727De22E5E9d8BAf0edAc6f37da032',
  factoryV06: '0x9406Cc6185a346906296840746125a0E44976454',
  factoryV07: '0x91E60e0613810449d098b0b5Ec8b51A0FE8c8985',
  entryPointV08: '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108',
  factoryV08: '0x13E9ed32155810FDbd067D4522C492D6f68E5944',
} as const;

export interface Erc4337Config {
  readonly entryPointV06: string;
  readonly entryPointV07: string;
  readonly factoryV06: string;
  readonly factoryV07: string;
  readonly entryPointV08: string;
  readonly factoryV08: string;
  /** The VerifyingPaymaster of each EntryPoint, when the network has one (the embedded devnet's is computed). */
  readonly paymasterV06?: string;
  readonly paymasterV07?: string;
  readonly paymasterV08?: string;
}

export interface BundlerConfig {
  readonly enabled: boolean;
  /** A file of executor private keys (one per line); BLOCKYARD_BUNDLER_KEYS also works. Devnet default: anvil's #1-#3. */
  readonly executorKeysFile?: string;
  /** ERC-7562 rules checked from traces (default true). */
  readonly safeMode: boolean;
  readonly maxBundleOps: number;
  /** The most ops one sender may have in the mempool with safe mode off (default 100); safe mode holds ERC-7562's 4. */
  readonly maxPendingOpsPerSender: number;
  /** ERC-7562 SREP-010: an entity with at least this stake and unstake delay counts as staked (default 1 ETH, 1 day). */
  readonly minStakeWei: bigint;
  readonly minUnstakeDelayS: number;
  /** The EntryPoint versions served, in the order eth_supportedEntryPoints lists them (default 0.7, 0.8, 0.6). */
  readonly entryPoints: readonly ('0.6' | '0.7' | '0.8')[];
}

/**
 * The `chains:` list (default: the embedded devnet alone), checked for what the schema cannot say:
 * one embedded devnet at most, each network once, the fields a remote network needs.
 */
export function buildChains(
  entries: readonly ChainEntry[] | undefined,
  devnetBlockTimeS: number,
  fileName: string,
): ChainConfig[] {
  const listed: readonly ChainEntry[] = entries ?? [{ embedded: true }];
  const seen = new Set<string>();
  let embeddedCount = 0;
  return listed.map((entry, index) => {
    const name = (field: string) => `chains[${index}].${field} (in ${fileName})`;
    const embedded = entry.embedded === true;
    if (embedded && ++embeddedCount > 1) throw new ConfigError(name('embedded'), 'only one embedded devnet is allowed');
    if (embedded && entry.upstreams) throw new ConfigError(name('upstreams'), 'the embedded devnet has no upstreams to set');
    if (!embedded) {
      for (const field of ['chain', 'network', 'upstreams'] as const) {
        if (entry[field] === undefined) throw new ConfigError(name(field), 'is required');
      }
    }
    const chain = entry.chain ?? 'ethereum';
    const network = entry.network ?? 'devnet';
    const key = `${chain}/${network}`;
    const preset: NetworkPreset | undefined = embedded ? undefined : presetFor(chain, network);
    const kind = entry.kind ?? preset?.kind ?? 'evm';
    if (kind === 'evm' && !embedded && (entry.chain_id ?? preset?.chainId) === undefined) {
      throw new ConfigError(name('chain_id'), `is required: ${key} is not a built-in network (docs/networks.md lists them)`);
    }
    if (seen.has(key)) throw new ConfigError(name('network'), `${key} is listed twice`);
    seen.add(key);
    assertUniqueUpstreamNames(entry.upstreams ?? [], name('upstreams'));
    const testnet = entry.testnet ?? preset?.testnet ?? (embedded || network !== 'mainnet');
    const devMethods = entry.dev_methods ?? embedded;
    if (devMethods && !testnet) throw new ConfigError(name('dev_methods'), 'is allowed on testnets only');
    return {
      chain,
      network,
      chainId: entry.chain_id ?? preset?.chainId ?? (embedded ? 31337 : 0),
      kind,
      testnet,
      nativeSymbol: entry.native_symbol ?? preset?.nativeSymbol ?? (kind === 'solana' ? 'SOL' : 'ETH'),
      embedded,
      upstreams: (entry.upstreams ?? []).map(buildUpstream),
      finalityDepth: entry.finality_depth ?? preset?.finalityDepth ?? (embedded ? 2 : 64),
      // anvil's own tags are fixed depths (64 and 32) that a 2-block devnet finality would contradict.
      finality: entry.finality ?? preset?.finality ?? (embedded ? 'depth' : 'tags'),
      feeModel: entry.fee_model ?? preset?.feeModel ?? (kind === 'solana' ? 'solana' : 'eip1559'),
      minPriorityFeeWei:
        entry.min_priority_fee_wei !== undefined ? BigInt(entry.min_priority_fee_wei) : preset?.minPriorityFeeWei,
      maxTransactionBytes: entry.max_transaction_bytes ?? preset?.maxTransactionBytes ?? (kind === 'solana' ? 1_232 : 131_072),
      multicall3: entry.multicall3 ?? canonicalMulticall3,
      blockTimeS: entry.block_time_s ?? preset?.blockTimeS ?? (embedded ? devnetBlockTimeS : 12),
      getLogsMaxRange: entry.get_logs_max_range ?? 10_000,
      maxLagBlocks: entry.max_lag_blocks ?? (kind === 'solana' ? solanaMaxLagSlots : 3),
      headPollMs: entry.head_poll_ms,
      genesisHash: kind === 'solana' ? (entry.genesis_hash ?? knownSolanaGenesis[key]) : undefined,
      devMethods,
      indexer: {
        enabled: kind === 'evm' && (entry.indexer?.enabled ?? embedded),
        // A devnet (embedded, or one that lets dev methods through) is cheap to read from genesis; a real
        // chain starts at the head of its index's first start (src/indexer/index-origin.ts).
        startBlock: entry.indexer?.start_block ?? (embedded || devMethods ? 0 : undefined),
      },
      erc4337: buildErc4337(entry.erc4337),
      bundler: buildBundler(entry.bundler, kind === 'evm' && (entry.bundler?.enabled ?? embedded)),
    } satisfies ChainConfig;
  });
}

function assertUniqueUpstreamNames(upstreams: NonNullable<ChainEntry['upstreams']>, setting: string): void {
  const names = upstreams.map((upstream) => upstream.name).filter((name) => name !== undefined);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) throw new ConfigError(setting, `two upstreams are named '${twice}'`);
}

/** About 10 s of Solana slots: providers routinely differ by a few, so only a large gap counts. */
const solanaMaxLagSlots = 25;

/** Genesis hashes of the public Solana clusters (`getGenesisHash`). */
const knownSolanaGenesis: Record<string, string> = {
  'solana/mainnet': '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d',
  'solana/devnet': 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
  'solana/testnet': '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY',
};

function buildUpstream(upstream: NonNullable<ChainEntry['upstreams']>[number]): UpstreamConfig {
  return {
    url: upstream.url,
    wsUrl: upstream.ws_url,
    name: upstream.name,
    timeoutMs: upstream.timeout_ms,
    maxConcurrency: upstream.max_concurrency,
    batchMaxSize: upstream.batch_max_size,
    gzip: upstream.gzip,
    tier: upstream.tier,
    rps: upstream.rps,
    cuPerS: upstream.cu_per_s,
    cuTable: upstream.cu_table,
    methods: upstream.methods,
    archive: upstream.archive,
    recentBlocks: upstream.recent_blocks,
    getLogsMaxRange: upstream.get_logs_max_range,
  };
}

function buildErc4337(erc4337: ChainEntry['erc4337']): Erc4337Config {
  return {
    entryPointV06: erc4337?.entry_point_v06 ?? canonicalErc4337.entryPointV06,
    entryPointV07: erc4337?.entry_point_v07 ?? canonicalErc4337.entryPointV07,
    factoryV06: erc4337?.factory_v06 ?? canonicalErc4337.factoryV06,
    factoryV07: erc4337?.factory_v07 ?? canonicalErc4337.factoryV07,
    entryPointV08: erc4337?.entry_point_v08 ?? canonicalErc4337.entryPointV08,
    factoryV08: erc4337?.factory_v08 ?? canonicalErc4337.factoryV08,
    paymasterV06: erc4337?.paymaster_v06,
    paymasterV07: erc4337?.paymaster_v07,
    paymasterV08: erc4337?.paymaster_v08,
  };
}

function buildBundler(bundler: ChainEntry['bundler'], enabled: boolean): BundlerConfig {
  return {
    enabled,
    executorKeysFile: bundler?.executor_keys_file,
    safeMode: bundler?.safe_mode ?? true,
    maxBundleOps: bundler?.max_bundle_ops ?? 50,
    maxPendingOpsPerSender: bundler?.max_pending_ops_per_sender ?? 100,
    minStakeWei: BigInt(bundler?.min_stake_wei ?? '1000000000000000000'),
    minUnstakeDelayS: bundler?.min_unstake_delay_s ?? 86_400,
    entryPoints: bundler?.entry_points ?? ['0.7', '0.8', '0.6'],
  };
}
