import type { Address, PublicClient, StateOverride } from 'viem';
import { entryPointV06Abi } from '../erc4337/contracts/abis.ts';
import { maxCostOf } from './op-max-cost.ts';
import { aaError } from './rpc-errors.ts';
import type { AnyUserOperation, EntryPointVersion } from './user-operation.ts';

/**
 * What the sender has to pay its prefund with, in the state `override` gives (the client's state
 * override, the sender's queued ops): its balance and its deposit in the EntryPoint.
 */
export async function readSenderFunds(
  client: PublicClient,
  entryPoint: Address,
  sender: Address,
  override: StateOverride,
): Promise<{ balance: bigint; deposit: bigint }> {
  const given = override.find((entry) => entry.address.toLowerCase() === sender.toLowerCase())?.balance;
  const [balance, deposit] = await Promise.all([
    given ?? client.getBalance({ address: sender }),
    client.readContract({
      address: entryPoint,
      abi: entryPointV06Abi,
      functionName: 'balanceOf',
      args: [sender],
      stateOverride: override,
    }),
  ]);
  return { balance, deposit };
}

/**
 * AA21 for an op (with its estimated limits) whose sender cannot pay the EntryPoint's prefund, every
 * gas limit at maxFeePerGas, from its balance and deposit; estimation itself gives the sender funds,
 * so this is how it hears it, as Alto says it. Undefined when it can, or when a paymaster pays.
 */
export function prefundShortfall(
  op: AnyUserOperation,
  version: EntryPointVersion,
  funds: { balance: bigint; deposit: bigint },
): ReturnType<typeof aaError> | undefined {
  const needed = maxCostOf(op, version);
  const has = funds.balance + funds.deposit;
  if (has >= needed) return undefined;
  return aaError(
    "AA21 didn't pay prefund",
    `the sender ${op.sender} has ${funds.balance} wei and a deposit of ${funds.deposit} wei; the estimated gas limits at maxFeePerGas ${op.maxFeePerGas} need ${needed} wei. To estimate before funding it, give it a balance in the state override parameter`,
  );
}

/**
 * AA21 for an op whose call reverted in the estimate's probes (which give the sender funds) while the
 * sender has nothing to pay its prefund with: the EntryPoint validates before it executes, so that is
 * what it would answer first, and often why the call reverted (it sends value the account lacks).
 * Undefined when the sender can pay the prefund of the limits it gave (nothing when it gave none, then
 * any funds at all), or when its fees are zero.
 */
export function prefundShortfallBeforeCall(
  op: AnyUserOperation,
  version: EntryPointVersion,
  funds: { balance: bigint; deposit: bigint },
): ReturnType<typeof aaError> | undefined {
  if (op.maxFeePerGas === 0n) return undefined;
  const has = funds.balance + funds.deposit;
  if (has > 0n && has >= maxCostOf(op, version)) return undefined;
  return aaError(
    "AA21 didn't pay prefund",
    `the sender ${op.sender} has ${funds.balance} wei and a deposit of ${funds.deposit} wei: it cannot pay its prefund at maxFeePerGas ${op.maxFeePerGas}, and its call reverts without those funds. To estimate before funding it, give it a balance in the state override parameter`,
  );
}
