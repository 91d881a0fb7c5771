import type { Network } from '../chains/registry.ts';
import { invalidRequest } from '../core/errors.ts';
import type { AssetChange } from './asset-changes.ts';
import type { ChainCaller } from './chain-caller.ts';
import { parseAddress, positionalParams, quote } from './rpc-params.ts';
import { type AssetChangesDeps, assetChangesOf } from './simulate-asset-changes.ts';
import { parseSimulationBlock, type SimulationCall } from './simulation-params.ts';

/** Alchemy's answer: the op's asset changes, or why it cannot run. */
export interface UserOperationAssetChanges {
  changes: AssetChange[];
  error: { message: string; revertReason?: string } | null;
}

const hexBytes = /^0x(?:[0-9a-fA-F]{2})*$/;
/** EntryPoint v0.8's `senderCreator()`: a v0.8 factory takes calls only from it. */
const senderCreatorCall = '0x09ccb880';
/** EIP-7702 ops name this marker as their factory: the account is the sender's delegation, nothing is deployed. */
const eip7702Marker = '0x7702000000000000000000000000000000000000';

function bytesMember(op: Record<string, unknown>, name: string, required: boolean): string | undefined {
  const value = op[name];
  if (value === undefined || value === null) {
    if (required) throw invalidRequest(name, 'is required in the UserOperation');
    return undefined;
  }
  if (typeof value !== 'string' || !hexBytes.test(value))
    throw invalidRequest(name, `${quote(value)} is not 0x-prefixed hex bytes`);
  return value.toLowerCase();
}

/** The factory and its data, from v0.6's `initCode` or v0.7's `factory` and `factoryData`; undefined when the account exists. */
function deploymentOf(op: Record<string, unknown>): { factory: string; data: string } | undefined {
  const initCode = bytesMember(op, 'initCode', false);
  if (initCode !== undefined && initCode.length >= 42) return { factory: initCode.slice(0, 42), data: `0x${initCode.slice(42)}` };
  if (op.factory === undefined || op.factory === null) return undefined;
  const factory = parseAddress('factory', op.factory);
  if (factory === eip7702Marker) return undefined;
  return { factory, data: bytesMember(op, 'factoryData', false) ?? '0x' };
}

/** The EntryPoints the network serves (v0.6, v0.7, v0.8), lower-cased. */
function entryPointsOf(network: Network): string[] {
  const { entryPointV06, entryPointV07, entryPointV08 } = network.config.erc4337;
  return [entryPointV06, entryPointV07, entryPointV08].map((address) => address.toLowerCase());
}

async function senderCreatorOf(chain: ChainCaller, entryPoint: string, block: string): Promise<string> {
  try {
    const answer = await chain('eth_call', [{ to: entryPoint, data: senderCreatorCall }, block]);
    return typeof answer === 'string' && answer.length === 66 ? `0x${answer.slice(26)}` : entryPoint;
  } catch {
    return entryPoint; // v0.6 and v0.7 have no such getter: their factories take any caller.
  }
}

/**
 * `alchemy_simulateUserOperationAssetChanges [userOp, entryPoint, blockNumber?]`: the op's execution as
 * the EntryPoint runs it (the factory's deployment first when the op carries one, then the account
 * called with the op's callData by the EntryPoint), chained in one simulation. Validation is not run,
 * so a dummy signature works, as Alchemy's does; the gas prefund and the paymaster's settlement are
 * fees, not asset changes, as a transaction's gas is not.
 */
export async function simulateUserOperationAssetChanges(
  deps: AssetChangesDeps,
  network: Network,
  params: unknown,
  chain: ChainCaller,
): Promise<UserOperationAssetChanges> {
  const [rawOp, rawEntryPoint, rawBlock] = positionalParams(params, 2, 3);
  if (rawOp === null || typeof rawOp !== 'object' || Array.isArray(rawOp))
    throw invalidRequest('params[0]', 'must be a UserOperation object');
  const op = rawOp as Record<string, unknown>;
  const entryPoint = parseAddress('params[1]', rawEntryPoint);
  if (!entryPointsOf(network).includes(entryPoint)) {
    throw invalidRequest(
      'params[1]',
      `${quote(rawEntryPoint)} is not an EntryPoint of this network (${entryPointsOf(network).join(', ')})`,
    );
  }
  const block = parseSimulationBlock('params[2]', rawBlock);
  const sender = parseAddress('sender', op.sender);
  const callData = bytesMember(op, 'callData', true)!;
  const deployment = deploymentOf(op);
  const calls: SimulationCall[] = [];
  if (deployment !== undefined) {
    calls.push({ from: await senderCreatorOf(chain, entryPoint, block), to: deployment.factory, data: deployment.data });
  }
  calls.push({ from: entryPoint, to: sender, data: callData });
  const results = await assetChangesOf(deps, network, chain, calls, block);
  const failed = results.find((result) => result.error !== null);
  return failed ? { changes: [], error: failed.error } : { changes: results.flatMap((result) => result.changes), error: null };
}
