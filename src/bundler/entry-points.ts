import { type Address, getAddress, isAddress, type PublicClient } from 'viem';
import type { Network } from '../chains/registry.ts';
import { entryPointV06Abi, entryPointV07Abi, entryPointV08Abi } from '../erc4337/contracts/abis.ts';
import { getEntryPointSimulationsCode } from '../erc4337/contracts/entry-point-simulations.ts';
import { invalidParams } from './rpc-errors.ts';
import {
  type AnyUserOperation,
  type EntryPointVersion,
  parseUserOperation,
  requireUserOperationObject,
} from './user-operation.ts';

export interface EntryPoint {
  version: EntryPointVersion;
  address: Address;
}

/**
 * The EntryPoints the network's bundler serves (`bundler.entry_points`), in its order: by default v0.7
 * first (what clients that take the first one expect), then v0.8 and v0.6.
 */
export function entryPointsOf(network: Network): EntryPoint[] {
  const { erc4337, bundler } = network.config;
  const addresses = { '0.6': erc4337.entryPointV06, '0.7': erc4337.entryPointV07, '0.8': erc4337.entryPointV08 };
  return bundler.entryPoints.map((version) => ({ version, address: getAddress(addresses[version]) }));
}

/** The EntryPoint a call names by its address, among the network's; -32602 naming the supported ones otherwise. */
export function resolveEntryPoint(network: Network, input: unknown, position: 'first' | 'second' = 'second'): EntryPoint {
  if (typeof input !== 'string' || !isAddress(input, { strict: false }))
    throw invalidParams(`the ${position} parameter must be the EntryPoint address`);
  const found = entryPointsOf(network).find((entry) => entry.address.toLowerCase() === input.toLowerCase());
  if (!found) {
    throw invalidParams(
      `EntryPoint ${input} is not supported here; supported: ${entryPointsOf(network)
        .map((entry) => entry.address)
        .join(', ')}`,
    );
  }
  return found;
}

/**
 * The `[userOperation, entryPoint]` params of a call: the op read as its EntryPoint's version. A
 * missing op is named before the EntryPoint (-32602). `defaults` fills gas fields (estimation).
 */
export function parseUserOperationCall(
  network: Network,
  params: unknown[],
  defaults?: Partial<Record<string, string>>,
): { entryPoint: EntryPoint; op: AnyUserOperation } {
  requireUserOperationObject(params[0]);
  const entryPoint = resolveEntryPoint(network, params[1]);
  return { entryPoint, op: parseUserOperation(entryPoint.version, params[0], defaults) };
}

/** The ABI of an EntryPoint version (its handleOps, events and errors). */
export const entryPointAbiOf = (version: EntryPointVersion) =>
  version === '0.8' ? entryPointV08Abi : version === '0.7' ? entryPointV07Abi : entryPointV06Abi;

/** The runtime code of the version's EntryPointSimulations (v0.7 and v0.8; v0.6 simulates in the EntryPoint itself). */
export const simulationsCodeOf = (version: Exclude<EntryPointVersion, '0.6'>) =>
  getEntryPointSimulationsCode(version === '0.8' ? 'v08' : 'v07');

/** The EntryPoint's next nonce for the sender's nonce key (`getNonce`, the same in every version). */
export function readOnChainNonce(client: PublicClient, entryPoint: Address, sender: Address, key: bigint): Promise<bigint> {
  return client.readContract({ address: entryPoint, abi: entryPointV06Abi, functionName: 'getNonce', args: [sender, key] });
}
