import { readFileSync } from 'node:fs';
import type { Abi, AbiItem } from 'viem';
import { formatAbiItem } from 'viem/utils';
import { describe, expect, it } from 'vitest';
import { compileContracts } from '../../src/contracts/compile.ts';
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

describe("Blockyard's VerifyingPaymasterV08", () => {
  it('has every item of v0.7 ABI Blockyard calls (it signs the same hash)', async () => {
    const { VerifyingPaymasterV08 } = await compileContracts();
    const artifact = described(VerifyingPaymasterV08.abi);
    for (const item of described(verifyingPaymasterV07Abi)) expect(artifact).toContain(item);
  }, 120_000);

  it('is kept compiled beside its source (npm run generate writes it)', async () => {
    const { VerifyingPaymasterV08 } = await compileContracts();
    const kept = JSON.parse(
      readFileSync(new URL('../../src/paymaster/verifying-paymaster-v08.generated.json', import.meta.url), 'utf8'),
    ) as { bytecode: string };
    expect(kept.bytecode).toBe(VerifyingPaymasterV08.bytecode);
  }, 120_000);
});
