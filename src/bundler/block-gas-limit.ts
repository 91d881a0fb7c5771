import type { PublicClient } from 'viem';
import type { UserOperation } from 'viem/account-abstraction';
import { type BundlerRpcError, invalidParams } from './rpc-errors.ts';
import type { AnyUserOperation, EntryPointVersion } from './user-operation.ts';

/** The block gas limit moves slowly (a voted 1/1024 a block at most): a minute-old reading answers. */
const maxAgeMs = 60_000;
const recent = new WeakMap<PublicClient, { at: number; gasLimit: Promise<bigint> }>();

/** The latest block's gas limit, read at most once a minute per client; concurrent reads share one call. */
export function recentBlockGasLimit(client: PublicClient, now = performance.now()): Promise<bigint> {
  const cached = recent.get(client);
  if (cached && now - cached.at < maxAgeMs) return cached.gasLimit;
  const gasLimit = client.getBlock({ blockTag: 'latest' }).then((block) => block.gasLimit);
  const entry = { at: now, gasLimit };
  recent.set(client, entry);
  // A failed read is not kept: the next send asks again.
  gasLimit.catch(() => {
    if (recent.get(client) === entry) recent.delete(client);
  });
  return gasLimit;
}

/**
 * -32602 for an op no bundle could carry: before the op's call the EntryPoint checks that the gas left
 * covers it (v0.7 and v0.8: callGasLimit + paymasterPostOpGasLimit, v0.6: callGasLimit +
 * verificationGasLimit, else "AA95 out of gas"), and a bundle's gas is at most a block's. Such an op was
 * accepted and then dropped at bundling (AA95). Undefined when it fits.
 */
export function blockGasLimitError(
  op: AnyUserOperation,
  version: EntryPointVersion,
  blockGasLimit: bigint,
): BundlerRpcError | undefined {
  const needed =
    version === '0.6'
      ? op.callGasLimit + op.verificationGasLimit
      : op.callGasLimit + ((op as UserOperation<'0.7'>).paymasterPostOpGasLimit ?? 0n);
  if (needed <= blockGasLimit) return undefined;
  const fields = version === '0.6' ? 'callGasLimit + verificationGasLimit' : 'callGasLimit + paymasterPostOpGasLimit';
  return invalidParams(
    `${fields} (${needed}) is above the block gas limit ${blockGasLimit}: no bundle could carry this operation (the EntryPoint would answer AA95 out of gas)`,
    'callGasLimit',
  );
}
