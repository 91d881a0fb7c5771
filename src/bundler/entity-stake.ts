import { type Address, type PublicClient, parseAbi } from 'viem';
import type { BundlerConfig } from '../config/chain-settings.ts';

const getDepositInfoAbi = parseAbi([
  'function getDepositInfo(address account) view returns ((uint256 deposit, bool staked, uint112 stake, uint32 unstakeDelaySec, uint48 withdrawTime) info)',
]);

/** An entity's stake in the EntryPoint (the same `getDepositInfo` in v0.6, v0.7 and v0.8). */
export async function readStake(
  client: PublicClient,
  entryPoint: Address,
  address: Address,
): Promise<{ stake: bigint; unstakeDelaySec: number }> {
  const info = await client.readContract({
    address: entryPoint,
    abi: getDepositInfoAbi,
    functionName: 'getDepositInfo',
    args: [address],
  });
  return { stake: info.stake, unstakeDelaySec: info.unstakeDelaySec };
}

/** ERC-7562's staked entity (SREP-010): a stake and an unstake delay at the network's minimums. */
export function meetsStake(
  config: Pick<BundlerConfig, 'minStakeWei' | 'minUnstakeDelayS'>,
  stake: { stake: bigint; unstakeDelaySec: number | bigint },
): boolean {
  return stake.stake >= config.minStakeWei && BigInt(stake.unstakeDelaySec) >= BigInt(config.minUnstakeDelayS);
}
