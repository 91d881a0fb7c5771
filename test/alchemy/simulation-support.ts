import { type Address, erc20Abi, type Hex, type PublicClient, parseAbi } from 'viem';
import { multicall3Address } from '../../src/chains/public-client.ts';
import type { TestContracts } from '../support/contracts.ts';

export const multicallAbi = parseAbi([
  'struct Call3 { address target; bool allowFailure; bytes callData; }',
  'struct Call3Value { address target; bool allowFailure; uint256 value; bytes callData; }',
  'struct Result { bool success; bytes returnData; }',
  'function aggregate3(Call3[] calls) payable returns (Result[])',
  'function aggregate3Value(Call3Value[] calls) payable returns (Result[])',
]);
export const multicall = multicall3Address.toLowerCase() as Address;

export interface SimTx {
  label: string;
  from: Address;
  /** Absent: the transaction deploys its data. */
  to?: Address;
  value?: bigint;
  data?: Hex;
  /** The transaction reverts: sent with a fixed gas limit (estimation would refuse it). */
  reverts?: boolean;
}

export interface Change {
  assetType: string;
  changeType: string;
  from: string;
  to: string;
  rawAmount: string | null;
  contractAddress: string | null;
  tokenId: string | null;
  decimals: number | null;
  symbol: string | null;
  amount: string | null;
}

export interface AssetChangesAnswer {
  changes: Change[];
  gasUsed: string | null;
  error: { message: string } | null;
}

const nftIds = [1n, 2n, 3n, 4n, 5n, 6n];
const itemIds = [1n, 2n, 3n];

/** Every balance the differential watches: ETH, the token, each NFT's owner and each item's holdings of `holders`. */
export async function snapshot(
  client: PublicClient,
  contracts: TestContracts,
  holders: readonly Address[],
): Promise<Map<string, bigint>> {
  const state = new Map<string, bigint>();
  const { token, nft, items, artifacts } = contracts;
  for (const holder of holders) {
    const h = holder.toLowerCase();
    state.set(`NATIVE|${h}`, await client.getBalance({ address: holder }));
    state.set(
      `ERC20|${h}`,
      await client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder] }),
    );
    for (const id of itemIds) {
      const held = await client.readContract({
        address: items,
        abi: artifacts.DemoItems.abi,
        functionName: 'balanceOf',
        args: [holder, id],
      });
      state.set(`ERC1155|${id}|${h}`, held as bigint);
    }
  }
  for (const id of nftIds) {
    const owner = (await client.readContract({
      address: nft,
      abi: artifacts.DemoNft.abi,
      functionName: 'ownerOf',
      args: [id],
    })) as string;
    state.set(`ERC721|${id}`, BigInt(owner));
  }
  return state;
}

/** The state `before` would become if exactly the simulated transfers happened (approvals move nothing). */
export function applyChanges(before: ReadonlyMap<string, bigint>, changes: readonly Change[]): Map<string, bigint> {
  const after = new Map(before);
  const move = (key: string, delta: bigint) => {
    if (after.has(key)) after.set(key, after.get(key)! + delta);
  };
  for (const change of changes) {
    if (change.changeType !== 'TRANSFER') continue;
    const amount = BigInt(change.rawAmount ?? '0');
    if (change.assetType === 'NATIVE' || change.assetType === 'ERC20') {
      move(`${change.assetType}|${change.from}`, -amount);
      move(`${change.assetType}|${change.to}`, amount);
    } else if (change.assetType === 'ERC1155') {
      move(`ERC1155|${change.tokenId}|${change.from}`, -amount);
      move(`ERC1155|${change.tokenId}|${change.to}`, amount);
    } else if (change.assetType === 'ERC721') {
      const key = `ERC721|${change.tokenId}`;
      if (after.get(key) !== BigInt(change.from))
        throw new Error(`simulated ${key} leaves ${change.from}, which does not own it`);
      after.set(key, BigInt(change.to));
    }
  }
  return after;
}
