import { type Address, encodeFunctionData, type Hex, keccak256, parseAbi, serializeTransaction } from 'viem';

/**
 * The L1 part of a transaction's cost on a rollup. OP-stack charges it in wei beside the gas
 * (`feeWei`); Arbitrum charges it as L2 gas units counted in the gas used (`l1Gas`, priced at the L2
 * base fee), so there it belongs inside every gas limit. `none`: an L1, or a chain without such a part.
 */
export type L1Cost =
  | { readonly model: 'none' }
  | { readonly model: 'op-stack'; readonly feeWei: bigint }
  | { readonly model: 'arbitrum'; readonly l1Gas: bigint; readonly baseFee: bigint; readonly l1BaseFeeEstimate: bigint };

export const noL1Cost: L1Cost = { model: 'none' };

/** A transaction as the L1 cost is asked of it: its target and calldata, and its bytes as the chain posts them. */
export interface L1CostQuery {
  readonly to: Address;
  readonly data: Hex;
  /**
   * The whole transaction, RLP-serialized, as GasPriceOracle.getL1Fee takes it. The oracle adds 68
   * bytes for the signature it assumes is missing: unsigned is what the chain charges; signed (or with
   * `stubSignature`) errs high by one signature, never low.
   */
  readonly serialized: Hex;
}

/** The L1 cost in wei (Arbitrum: its gas units at the L2 base fee the node quoted). Pure. */
export function l1FeeWeiOf(cost: L1Cost): bigint {
  if (cost.model === 'op-stack') return cost.feeWei;
  if (cost.model === 'arbitrum') return cost.l1Gas * cost.baseFee;
  return 0n;
}

/**
 * The L1 cost as L2 gas for someone paying `gasPrice` wei per gas (rounded up): what an op's
 * preVerificationGas must hold for it to pay the L1 part. Arbitrum's is gas already. Pure.
 */
export function l1GasAtPrice(cost: L1Cost, gasPrice: bigint): bigint {
  if (cost.model === 'arbitrum') return cost.l1Gas;
  if (cost.model === 'none') return 0n;
  if (gasPrice <= 0n) throw new RangeError('an L1 fee cannot be paid at a gas price of 0');
  return (cost.feeWei + gasPrice - 1n) / gasPrice;
}

/** `value` raised by `percent` (e.g. 115n: +15%), rounded up. Pure. */
export const withPercent = (value: bigint, percent: bigint): bigint => (value * percent + 99n) / 100n;

/**
 * A signature of a real one's size and entropy (r and s look random: a compressing rollup such as
 * OP-stack after Fjord must see as many incompressible bytes as a signed transaction has), for
 * serializing a transaction that is not signed yet. Derived from `seed`, so one query is one cache key.
 */
export function stubSignature(seed: Hex): { r: Hex; s: Hex; yParity: 1 } {
  const r = keccak256(seed);
  return { r, s: keccak256(r), yParity: 1 };
}

const erc20Abi = parseAbi(['function transfer(address to, uint256 amount) returns (bool)']);

/**
 * An ERC-20 `transfer` as a wallet sends it (type 2), unsigned as getL1Fee expects: the transaction the
 * gas prices answer's `l1_data_fee.estimated_wei_per_transfer` is the L1 fee of. Token, recipient and
 * amount are fixed values of a typical transfer's size (full-width addresses, an 18-decimal amount).
 */
export function erc20TransferQuery(chainId: number): L1CostQuery {
  const token: Address = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
  const data = encodeFunctionData({
    abi: erc20Abi,
    functionName: 'transfer',
    args: ['0x4838B106FCe9647Bdf1E7877BF73cE8B0BAD5f97', 1_234_567_890_123_456_789n],
  });
  const transaction = {
    type: 'eip1559',
    chainId,
    nonce: 1_234,
    gas: 65_000n,
    maxFeePerGas: 1_000_000_000n,
    maxPriorityFeePerGas: 1_000_000n,
    to: token,
    data,
  } as const;
  return { to: token, data, serialized: serializeTransaction(transaction) };
}
