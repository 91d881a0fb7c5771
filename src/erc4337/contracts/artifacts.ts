import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Abi, Hex } from 'viem';
import type { EntryPointVersion } from './abis.ts';

/** A Hardhat artifact of `@account-abstraction/contracts`, as shipped in its `artifacts/` folder. */
export interface Erc4337Artifact {
  abi: Abi;
  /** Creation code (constructor included), without constructor arguments. */
  bytecode: Hex;
  /** Runtime code with immutables left as zeros: not installable with setCode where immutables matter. */
  deployedBytecode: Hex;
}

export type Erc4337ContractName =
  | 'EntryPoint'
  | 'SimpleAccountFactory'
  | 'SimpleAccount'
  | 'EntryPointSimulations'
  | 'Simple7702Account'
  | 'VerifyingPaymaster';

/** Exact versions (package.json pins them): the canonical CREATE2 addresses hold only for this very bytecode. */
const packageOf: Record<EntryPointVersion, string> = {
  v06: '@account-abstraction/contracts-v06',
  v07: '@account-abstraction/contracts',
  v08: '@account-abstraction/contracts-v08',
};

const require = createRequire(import.meta.url);

/**
 * Reads one artifact from disk. Not cached: an EntryPoint artifact is ~100 KB that only an install needs.
 *
 * @example
 * const { bytecode } = readErc4337Artifact('v07', 'EntryPoint');
 */
export function readErc4337Artifact(version: EntryPointVersion, name: Erc4337ContractName): Erc4337Artifact {
  const file = require.resolve(`${packageOf[version]}/artifacts/${name}.json`);
  const { abi, bytecode, deployedBytecode } = JSON.parse(readFileSync(file, 'utf8')) as Erc4337Artifact;
  return { abi, bytecode, deployedBytecode };
}
