import { parseAbi } from 'viem';

/** The OP-stack GasPriceOracle predeploy: the L1 data fee of a transaction, as the chain's own state computes it. */
export const gasPriceOracleAddress = '0x420000000000000000000000000000000000000F' as const;

export const gasPriceOracleAbi = parseAbi([
  'function getL1Fee(bytes _data) view returns (uint256)',
  'function getL1FeeUpperBound(uint256 _unsignedTxSize) view returns (uint256)',
  'function isEcotone() view returns (bool)',
  'function isFjord() view returns (bool)',
  'function l1BaseFee() view returns (uint256)',
]);

/** Arbitrum's NodeInterface: a virtual contract the Nitro node answers (not deployed code). */
export const nodeInterfaceAddress = '0x00000000000000000000000000000000000000C8' as const;

export const nodeInterfaceAbi = parseAbi([
  'function gasEstimateL1Component(address to, bool contractCreation, bytes data) payable returns (uint64 gasEstimateForL1, uint256 baseFee, uint256 l1BaseFeeEstimate)',
]);
