import { type Address, getAddress, isAddress } from 'viem';
import { BundlerRpcError, bundlerErrorCodes } from '../bundler/rpc-errors.ts';
import { type AnyUserOperation, type EntryPointVersion, parseUserOperation } from '../bundler/user-operation.ts';
import type { Network } from '../chains/registry.ts';
import { invalidRequest } from '../core/errors.ts';
import { assertAddressChecksum } from '../http/address-param.ts';
import { stubPaymasterFields } from '../paymaster/paymaster-data.ts';
import type { PaymasterSetup } from '../paymaster/paymaster-setup.ts';
import { assertGasFieldBounds } from './operation-bounds.ts';

/** The EntryPoint the op is for: the one named, else the one its shape says. */
export function entryPointFor(
  network: Network,
  requested: string | undefined,
  op: unknown,
): { version: EntryPointVersion; address: Address } {
  const { entryPointV06, entryPointV07, entryPointV08 } = network.config.erc4337;
  if (requested !== undefined) {
    if (!isAddress(requested, { strict: false })) throw invalidRequest('entry_point', 'must be a 0x address');
    assertAddressChecksum('entry_point', requested);
    if (requested.toLowerCase() === entryPointV07.toLowerCase()) return { version: '0.7', address: getAddress(entryPointV07) };
    if (requested.toLowerCase() === entryPointV08.toLowerCase()) return { version: '0.8', address: getAddress(entryPointV08) };
    if (requested.toLowerCase() === entryPointV06.toLowerCase()) return { version: '0.6', address: getAddress(entryPointV06) };
    throw invalidRequest(
      'entry_point',
      `not served here; use ${entryPointV07} (v0.7), ${entryPointV08} (v0.8) or ${entryPointV06} (v0.6)`,
    );
  }
  // Without one, the op's shape says: v0.6 ops carry initCode / paymasterAndData; v0.8 is only ever named.
  const v06 = typeof op === 'object' && op !== null && ('initCode' in op || 'paymasterAndData' in op);
  return v06 ? { version: '0.6', address: getAddress(entryPointV06) } : { version: '0.7', address: getAddress(entryPointV07) };
}

/** The op as the paymaster will see it: the paymaster named, its gas limits filled, no signature needed yet. */
export function readSponsoredOperation(
  version: EntryPointVersion,
  input: unknown,
  setup: PaymasterSetup,
  defaults: Partial<Record<string, string>> = {},
): AnyUserOperation {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalidRequest('user_operation', 'must be a UserOperation object');
  const stub = stubPaymasterFields(setup);
  const withPaymaster =
    stub.version !== '0.6'
      ? {
          ...input,
          paymaster: stub.paymaster,
          paymasterData: stub.paymasterData,
          paymasterVerificationGasLimit: `0x${stub.paymasterVerificationGasLimit.toString(16)}`,
          paymasterPostOpGasLimit: `0x${stub.paymasterPostOpGasLimit.toString(16)}`,
        }
      : { ...input, paymasterAndData: stub.paymasterAndData };
  try {
    const op = parseUserOperation(version, withPaymaster, { signature: '0x', ...defaults });
    assertGasFieldBounds(op);
    return op;
  } catch (error) {
    if (error instanceof BundlerRpcError && error.code === bundlerErrorCodes.invalidParams) {
      const field = (error.data as { field?: string } | undefined)?.field;
      if (field) throw invalidRequest(`user_operation.${field}`, error.message.replace(`userOperation.${field} `, ''));
      throw invalidRequest('user_operation', error.message);
    }
    throw error;
  }
}
