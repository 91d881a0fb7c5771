import type { Abi, AbiItem } from 'viem';
import { formatAbiItem } from 'viem/utils';
import { describe, expect, it } from 'vitest';
import { readErc4337Artifact } from '../../src/erc4337/contracts/artifacts.ts';
import { verifyingPaymasterV06Abi, verifyingPaymasterV07Abi } from '../../src/paymaster/verifying-paymaster-abi.ts';

/** Kind, signature, mutability and result types: what encoding and decoding depend on. */
function describeItem(item: AbiItem): string {
  if (item.type !== 'function') return item.type;
  const results = item.outputs.map((output) => formatAbiItem({ type: 'error', name: '', inputs: [output] })).join();
  return `${formatAbiItem(item)} ${item.stateMutability} -> ${results}`;
}
const described = (abi: Abi) => abi.map(describeItem);

describe('the VerifyingPaymaster ABIs match the deployed artifacts', () => {
  it.each([
    ['v06', verifyingPaymasterV06Abi],
    ['v07', verifyingPaymasterV07Abi],
  ] as const)('%s: each item is in the artifact', (version, abi) => {
    const artifact = described(readErc4337Artifact(version, 'VerifyingPaymaster').abi);
    for (const item of described(abi)) expect(artifact).toContain(item);
  });
});
