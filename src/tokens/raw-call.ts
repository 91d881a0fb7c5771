import type { Address, Hex } from 'viem';

/** One call of a batch read through Multicall3. */
export interface RawCall {
  readonly target: Address;
  readonly callData: Hex;
}

/** One call's outcome; a call to an address without code succeeds with `0x`. */
export interface RawResult {
  readonly success: boolean;
  readonly returnData: Hex;
}
