import { toHex } from 'viem';
import { networkKey } from '../../chains/network-key.ts';
import type { Network } from '../../chains/registry.ts';
import type { BundlerContext } from '../bundler-context.ts';
import { checkAuthorization, userOperationHashOnChain } from '../eip7702-chain.ts';
import { parseUserOperationCall } from '../entry-points.ts';
import { estimateUserOperationGas as estimateGas } from '../gas-estimation.ts';
import { estimationGasPrice } from '../l1-op-price.ts';
import { estimatedPreVerificationGas } from '../pre-verification-gas.ts';
import { prefundShortfall, prefundShortfallBeforeCall, readSenderFunds } from '../prefund-check.ts';
import { BundlerRpcError, bundlerErrorCodes } from '../rpc-errors.ts';
import { estimationState } from '../sender-queue.ts';
import { turnKeyOf } from '../sender-turns.ts';
import { settledOf } from '../settled.ts';
import { mergeStateOverrides, parseStateOverride } from '../state-override.ts';
import { type AnyUserOperation, entitiesOf, estimationDefaults } from '../user-operation.ts';

/**
 * eth_estimateUserOperationGas: the op's gas limits, as 0x quantities, in the state its sender's queued
 * ops leave and the client's state override (the third parameter) gives. On a rollup,
 * preVerificationGas also holds the op's L1 part (pre-verification-gas.ts). A sender that cannot pay
 * the prefund of the limits found (at the op's maxFeePerGas) is AA21, also when its call reverts (the
 * EntryPoint validates first).
 */
export async function estimateUserOperationGas(ctx: BundlerContext, network: Network, params: unknown[]) {
  const client = ctx.clientOf(network);
  const { entryPoint, op } = parseUserOperationCall(network, params, { ...estimationDefaults, signature: '0x' });
  const clientOverride = parseStateOverride(params[2]);
  // Clients estimate with a stub signature on the authorization too: its signer is checked on send.
  await checkAuthorization(client, op, network.config.chainId, { verifySigner: false });
  // A client may estimate N+1 as soon as it has sent N: N's send is let finish first.
  await ctx.turns.lowerDone(turnKeyOf(networkKey(network), entryPoint.address, op), op.nonce);
  const oracle = ctx.l1FeeOf(network);
  const priced = { op, version: entryPoint.version, entryPoint: entryPoint.address, chainId: network.config.chainId };
  // The L1 part first: the simulations then pay the prefund the op will (an account whose EntryPoint
  // deposit covers a smaller one skips its transfer, and would be given too little verification gas).
  const preVerificationGas = oracle.charged
    ? await estimatedPreVerificationGas(oracle, priced, await estimationGasPrice(client, op, network.config.minPriorityFeeWei))
    : undefined;
  const override = mergeStateOverrides(
    await estimationState(ctx.db, client, networkKey(network), entryPoint, op),
    clientOverride,
  );
  // A v0.8 op with the 0x7702 marker and no eip7702Auth needs the sender delegated already (on chain,
  // or in the state given): else -32602 as on send, not the simulation's bare revert.
  const senderCode = override.find((entry) => entry.address.toLowerCase() === op.sender.toLowerCase())?.code;
  if (entryPoint.version === '0.8' && senderCode === undefined)
    await userOperationHashOnChain(client, op, entryPoint.version, entryPoint.address, network.config.chainId);
  // The probes give the sender funds: whether it can pay its prefund is read beside them (a paymaster pays it otherwise).
  const funds = entitiesOf(op).paymaster
    ? undefined
    : settledOf(readSenderFunds(client, entryPoint.address, op.sender, override));
  const estimate = await estimateGas(client, entryPoint.version, entryPoint.address, op, override, preVerificationGas).catch(
    async (error: unknown) => {
      // The probes funded the sender: one that has nothing fails validation (AA21) before its call runs.
      const read = await funds;
      const short =
        error instanceof BundlerRpcError && error.code === bundlerErrorCodes.executionReverted && read?.ok
          ? prefundShortfallBeforeCall(op, entryPoint.version, read.value)
          : undefined;
      throw short ?? error;
    },
  );
  const read = await funds;
  if (read && !read.ok) throw read.error;
  const short = read && prefundShortfall({ ...op, ...estimate } as AnyUserOperation, entryPoint.version, read.value);
  if (short) throw short;
  return Object.fromEntries(Object.entries(estimate).map(([name, value]) => [name, toHex(value as bigint)]));
}
