import type { Abi, AbiItem } from 'viem';
import { formatAbiItem } from 'viem/utils';
import { describe, expect, it } from 'vitest';
import {
  entryPointV06Abi,
  entryPointV07Abi,
  entryPointV08Abi,
  simpleAccountFactoryAbi,
  simpleAccountV06Abi,
  simpleAccountV07Abi,
} from '../../../src/erc4337/contracts/abis.ts';
import { readErc4337Artifact } from '../../../src/erc4337/contracts/artifacts.ts';
import {
  entryPointSimulationsV07Abi,
  entryPointSimulationsV08Abi,
  getEntryPointSimulationsCode,
  getEntryPointSimulationsV07Code,
} from '../../../src/erc4337/contracts/entry-point-simulations.ts';

/** What matters to encoding and decoding: kind, signature, mutability, result types. */
function describeItem(item: AbiItem): string {
  if (item.type === 'constructor' || item.type === 'fallback' || item.type === 'receive') return item.type;
  const results =
    item.type === 'function'
      ? ` ${item.stateMutability} -> ${item.outputs.map((output) => formatAbiItem({ type: 'error', name: '', inputs: [output] })).join()}`
      : '';
  return `${item.type} ${formatAbiItem(item)}${results}`;
}

const described = (abi: Abi) => abi.map(describeItem).sort();

describe('ERC-4337 ABIs match the deployed artifacts', () => {
  it.each([
    ['v06', entryPointV06Abi],
    ['v07', entryPointV07Abi],
    ['v08', entryPointV08Abi],
  ] as const)('EntryPoint %s: every item, no more, no less', (version, abi) => {
    expect(described(abi)).toEqual(described(readErc4337Artifact(version, 'EntryPoint').abi));
  });

  it.each([
    ['v06', 'SimpleAccountFactory', simpleAccountFactoryAbi],
    ['v07', 'SimpleAccountFactory', simpleAccountFactoryAbi],
    ['v06', 'SimpleAccount', simpleAccountV06Abi],
    ['v07', 'SimpleAccount', simpleAccountV07Abi],
    ['v07', 'EntryPointSimulations', entryPointSimulationsV07Abi],
    ['v08', 'SimpleAccountFactory', simpleAccountFactoryAbi],
    ['v08', 'EntryPointSimulations', entryPointSimulationsV08Abi],
  ] as const)('%s %s: each item is in the artifact', (version, name, abi) => {
    const artifact = described(readErc4337Artifact(version, name).abi);
    for (const item of described(abi)) expect(artifact).toContain(item);
  });

  it("gives EntryPointSimulations v0.7's and v0.8's runtime code", () => {
    const code = getEntryPointSimulationsV07Code();
    expect(code).toBe(readErc4337Artifact('v07', 'EntryPointSimulations').deployedBytecode);
    expect(code.length).toBeGreaterThan(10_000);
    const v08 = getEntryPointSimulationsCode('v08');
    expect(v08).toBe(readErc4337Artifact('v08', 'EntryPointSimulations').deployedBytecode);
    expect(v08).not.toBe(code);
  });
});
