/**
 * What Blockyard knows of the public networks the spec names, so that an entry of only `chain`,
 * `network` and `upstreams` is right (docs/networks.md lists this table; every value can be overridden
 * in the entry).
 */

/** How a chain charges for gas beyond EIP-1559 (design.md, real-networks issue). */
export const feeModels = ['eip1559', 'op-stack', 'arbitrum', 'polygon', 'solana'] as const;
export type FeeModel = (typeof feeModels)[number];

/**
 * `tags`: the node's own `finalized` and `safe` blocks, read with the head (a depth only while a node
 * has not reported them); `depth`: a block is final `finality_depth` blocks below the head.
 */
export const finalityModels = ['tags', 'depth'] as const;
export type FinalityModel = (typeof finalityModels)[number];

export interface NetworkPreset {
  readonly kind: 'evm' | 'solana';
  /** EVM chains only. */
  readonly chainId?: number;
  readonly nativeSymbol: string;
  readonly testnet: boolean;
  readonly blockTimeS: number;
  readonly finality: FinalityModel;
  /** The depth used where the chain has no tags, or before a node reports them. */
  readonly finalityDepth: number;
  readonly feeModel: FeeModel;
  /** Polygon PoS: the node refuses a priority fee below this (wei). */
  readonly minPriorityFeeWei?: bigint;
  /** The largest signed transaction the chain's nodes accept, in bytes. */
  readonly maxTransactionBytes: number;
  /** Whether the canonical ERC-4337 and Multicall3 deployments exist there (EVM chains: all of these). */
  readonly canonicalContracts: boolean;
}

/** Multicall3, at the same address on every EVM chain listed here. */
export const canonicalMulticall3 = '0xcA11bde05977b3631167028862bE2a173976CA11';

/** geth's and its forks' (op-geth, bor) txpool limit: four 32 KiB slots. */
const gethMaxTransactionBytes = 4 * 32 * 1024;
/** Nitro's sequencer default (`--execution.sequencer.max-tx-data-size`). */
const arbitrumMaxTransactionBytes = 95_000;
/** One Solana packet. */
const solanaMaxTransactionBytes = 1_232;
/** Polygon PoS nodes' floor for the priority fee (25 gwei). */
const polygonMinPriorityFeeWei = 25_000_000_000n;

const ethereum = (chainId: number, testnet: boolean): NetworkPreset => ({
  kind: 'evm',
  chainId,
  nativeSymbol: 'ETH',
  testnet,
  blockTimeS: 12,
  finality: 'tags',
  // Two epochs: where `finalized` is usually found on a healthy beacon chain.
  finalityDepth: 64,
  feeModel: 'eip1559',
  maxTransactionBytes: gethMaxTransactionBytes,
  canonicalContracts: true,
});

const opStack = (chainId: number, testnet: boolean): NetworkPreset => ({
  kind: 'evm',
  chainId,
  nativeSymbol: 'ETH',
  testnet,
  blockTimeS: 2,
  finality: 'tags',
  // About the L1's two epochs plus the batch submission delay, in 2 s blocks.
  finalityDepth: 1_200,
  feeModel: 'op-stack',
  maxTransactionBytes: gethMaxTransactionBytes,
  canonicalContracts: true,
});

const arbitrum = (chainId: number, testnet: boolean): NetworkPreset => ({
  kind: 'evm',
  chainId,
  nativeSymbol: 'ETH',
  testnet,
  blockTimeS: 0.25,
  finality: 'tags',
  finalityDepth: 20_000,
  feeModel: 'arbitrum',
  maxTransactionBytes: arbitrumMaxTransactionBytes,
  canonicalContracts: true,
});

const polygon = (chainId: number, testnet: boolean): NetworkPreset => ({
  kind: 'evm',
  chainId,
  nativeSymbol: 'POL',
  testnet,
  blockTimeS: 2,
  // Bor reports `finalized` from Heimdall's milestones (a few seconds behind the head).
  finality: 'tags',
  finalityDepth: 256,
  feeModel: 'polygon',
  minPriorityFeeWei: polygonMinPriorityFeeWei,
  maxTransactionBytes: gethMaxTransactionBytes,
  canonicalContracts: true,
});

const solana = (testnet: boolean): NetworkPreset => ({
  kind: 'solana',
  nativeSymbol: 'SOL',
  testnet,
  blockTimeS: 0.4,
  // Solana's `finalized` commitment; the depth is the usual 32 slots of it.
  finality: 'tags',
  finalityDepth: 32,
  feeModel: 'solana',
  maxTransactionBytes: solanaMaxTransactionBytes,
  canonicalContracts: false,
});

export const networkPresets: Readonly<Record<string, NetworkPreset>> = {
  'ethereum/mainnet': ethereum(1, false),
  'ethereum/sepolia': ethereum(11_155_111, true),
  'ethereum/hoodi': ethereum(560_048, true),
  'base/mainnet': opStack(8_453, false),
  'base/sepolia': opStack(84_532, true),
  'optimism/mainnet': opStack(10, false),
  'optimism/sepolia': opStack(11_155_420, true),
  'arbitrum/mainnet': arbitrum(42_161, false),
  'arbitrum/sepolia': arbitrum(421_614, true),
  'polygon/mainnet': polygon(137, false),
  'polygon/amoy': polygon(80_002, true),
  'solana/mainnet': solana(false),
  'solana/devnet': solana(true),
};

export function presetFor(chain: string, network: string): NetworkPreset | undefined {
  return networkPresets[`${chain}/${network}`];
}
