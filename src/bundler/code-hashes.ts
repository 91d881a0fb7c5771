import { type Address, decodeAbiParameters, encodeAbiParameters, type Hex, keccak256, type PublicClient } from 'viem';
import type { CallFrame, Prestate } from './validation-call-tree.ts';

/** Address -> keccak256 of its code, lower-case: what ERC-7562 COD-010 compares between two validations. */
export type CodeHashes = Readonly<Record<string, Hex>>;

/** keccak256 of codes seen before: a contract's code is tens of kilobytes, its hash a lookup the next time. */
const knownHashes = new Map<string, Hex>();
const maxKnownHashes = 2_000;

function codeHash(code: string): Hex {
  let hash = knownHashes.get(code);
  if (hash === undefined) {
    hash = keccak256(code as Hex);
    if (knownHashes.size >= maxKnownHashes) knownHashes.delete(knownHashes.keys().next().value as string);
    knownHashes.set(code, hash);
  }
  return hash;
}

/**
 * The code hash of every address whose code an op's validation ran (each frame's target with code in
 * the touched state). Left out: `skip` (the EntryPoint, whose code the simulation replaces; an EIP-7702
 * sender whose delegation the simulation adds) and addresses without code (a sender created in this
 * validation, precompiles). Pure.
 */
export function visitedCodeHashes(tree: CallFrame, prestate: Prestate, skip: readonly string[]): CodeHashes {
  const codeOf = new Map<string, string>();
  for (const [address, account] of Object.entries(prestate)) if (account.code) codeOf.set(address.toLowerCase(), account.code);
  const skipped = new Set(skip.map((address) => address.toLowerCase()));
  const hashes: Record<string, Hex> = {};
  const visit = (frame: CallFrame) => {
    const to = frame.to?.toLowerCase();
    const code = to === undefined ? undefined : codeOf.get(to);
    if (to !== undefined && code && code !== '0x' && !skipped.has(to) && !(to in hashes)) hashes[to] = codeHash(code);
    for (const child of frame.calls ?? []) visit(child);
  };
  visit(tree);
  return hashes;
}

/**
 * Runtime code that answers EXTCODEHASH of each 32-byte word of its calldata, in order: put at an unused
 * address by a state override, so one eth_call reads the code hashes of any number of addresses.
 * i = 0; while (i < calldatasize) { mstore(i, extcodehash(calldataload(i))); i += 32 } return(0, calldatasize)
 */
const codeHashReader: Hex = '0x60005b368110600c57365ff35b80353f8152602001600256';
const readerAddress: Address = '0x00000000000000000000000000000000c0de4a54';

/** The current code hash of each address (EXTCODEHASH: 0x0 for an account that does not exist), in one call. */
export async function currentCodeHashes(client: PublicClient, addresses: readonly string[]): Promise<Map<string, Hex>> {
  if (addresses.length === 0) return new Map();
  const { data } = await client.call({
    to: readerAddress,
    data: encodeAbiParameters(
      addresses.map(() => ({ type: 'address' })),
      addresses as Address[],
    ),
    stateOverride: [{ address: readerAddress, code: codeHashReader }],
  });
  const words = decodeAbiParameters(
    addresses.map(() => ({ type: 'bytes32' })),
    data ?? '0x',
  ) as Hex[];
  return new Map(addresses.map((address, index) => [address.toLowerCase(), words[index]!]));
}

/** The first address whose code hash is no longer the one validated, or undefined. Pure. */
export function changedCode(validated: CodeHashes, current: ReadonlyMap<string, Hex>): string | undefined {
  return Object.keys(validated).find((address) => current.get(address)?.toLowerCase() !== validated[address]!.toLowerCase());
}
