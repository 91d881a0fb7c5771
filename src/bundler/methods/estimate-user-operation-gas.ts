import { toHex } from 'viem';
import { networkKey } from '../../chains/network-key.ts';
import type { Network } from '../../chains/registry.ts';
import type { BundlerContext } from '../bundler-context.ts';
import { checkAuthorization } from '../eip7702-chain.ts';
import { resolveEntryPoint } from '../entry-points.ts';
import { estimateUserOperationGas as estimateGas } from '../gas-estimation.ts';
import { estimationState } from '../sender-queue.ts';
import { turnKeyOf } from '../sender-turns.ts';
import { estimationDefaults, parseUserOperation } from '../user-operation.ts';

/** eth_estimateUserOperationGas: the op's gas limits, as 0x quantities, in the state its sender's queued ops leave. */
export async function estimateUserOperationGas(ctx: BundlerContext, network: Network, params: unknown[]) {
  const client = ctx.clientOf(network);
  const entryPoint = resolveEntryPoint(network, params[1]);
  const op = parseUserOperation(entryPoint.version, params[0], { ...estimationDefaults, signature: '0x' });
  // Clients estimate with a stub signature on the authorization too: its signer is checked on send.
  await checkAuthorization(client, op, network.config.chainId, { verifySigner: false });
  // A client may estimate N+1 as soon as it has sent N: N's send is let finish first.
  await ctx.turns.lowerDone(turnKeyOf(networkKey(network), entryPoint.address, op), op.nonce);
  const estimate = await estimateGas(
    client,
    entryPoint.version,
    entryPoint.address,
    op,
    await estimationState(ctx.db, client, networkKey(network), entryPoint, op),
  );
  return Object.fromEntries(Object.entries(estimate).map(([name, value]) => [name, toHex(value as bigint)]));
}
