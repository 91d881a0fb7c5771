import { encodeFunctionData, type PublicClient, parseAbi } from 'viem';
import type { Network } from '../chains/registry.ts';
import type { TokenFactsLookup } from '../tokens/token-facts.ts';
import {
  type AssetChange,
  type AssetFacts,
  type AssetType,
  formatChange,
  type RawChange,
  rawChangesOfStep,
} from './asset-changes.ts';
import type { ChainCaller } from './chain-caller.ts';
import type { NftSymbolLookup } from './nft-symbols.ts';
import type { SimulatedTransaction } from './simulation-outcome.ts';
import { parseBundleParams, parseSingleParams, type SimulationCall } from './simulation-params.ts';
import { type SimulationMemory, simulateCalls } from './simulation-run.ts';

/** Alchemy's answer for one simulated transaction. */
export interface AssetChangesResult {
  changes: AssetChange[];
  gasUsed: string | null;
  error: { message: string; revertReason?: string } | null;
}

export interface AssetChangesDeps {
  readonly tokenFacts: TokenFactsLookup;
  readonly nftSymbols: NftSymbolLookup;
  readonly clientFor: (network: Network) => PublicClient;
  readonly memory: SimulationMemory;
}

const erc1155InterfaceId = '0xd9b67a26';
const supportsInterfaceCall = encodeFunctionData({
  abi: parseAbi(['function supportsInterface(bytes4 id) view returns (bool)']),
  functionName: 'supportsInterface',
  args: [erc1155InterfaceId],
});

/** Whether an NFT contract says it is ERC-1155 (ERC-165); ERC-721 otherwise, for ApprovalForAll. */
async function isErc1155(client: PublicClient, contract: string): Promise<boolean> {
  try {
    const { data } = await client.call({ to: contract as `0x${string}`, data: supportsInterfaceCall });
    return data !== undefined && data.length >= 66 && BigInt(data.slice(0, 66)) === 1n;
  } catch {
    return false;
  }
}

/** The native currency's facts: the network's symbol, 18 decimals, named after the chain (`Ethereum`). */
function nativeFacts(network: Network): AssetFacts {
  const chain = network.config.chain;
  return { symbol: network.config.nativeSymbol, decimals: 18, name: chain.charAt(0).toUpperCase() + chain.slice(1), logo: null };
}

const noFacts: AssetFacts = { symbol: null, decimals: null, name: null, logo: null };

/** The simulated transactions' changes with the metadata Blockyard holds, read once for all of them. */
async function describeOutcomes(
  deps: AssetChangesDeps,
  network: Network,
  outcomes: readonly SimulatedTransaction[],
): Promise<AssetChangesResult[]> {
  const raw = outcomes.map((outcome) => outcome.steps.flatMap(rawChangesOfStep));
  const all = raw.flat();
  const contractsOf = (types: RawChange['assetType'][]) => [
    ...new Set(all.filter((change) => types.includes(change.assetType)).map((change) => change.contract!)),
  ];
  const erc20s = contractsOf(['ERC20']);
  const nfts = contractsOf(['ERC721', 'ERC1155', 'NFT_APPROVAL_FOR_ALL']);
  const forAll = contractsOf(['NFT_APPROVAL_FOR_ALL']);
  const [tokens, symbols, kinds] = await Promise.all([
    deps.tokenFacts.lookup(network, erc20s),
    deps.nftSymbols.lookup(network, nfts),
    Promise.all(forAll.map(async (contract) => [contract, await isErc1155(deps.clientFor(network), contract)] as const)),
  ]);
  const erc1155s = new Set(kinds.filter(([, is1155]) => is1155).map(([contract]) => contract));
  const native = nativeFacts(network);
  const describe = (change: RawChange): AssetChange => {
    if (change.assetType === 'NATIVE') return formatChange(change, 'NATIVE', native);
    const contract = change.contract!;
    if (change.assetType === 'ERC20') {
      const facts = tokens.get(contract);
      return formatChange(
        change,
        'ERC20',
        facts ? { ...noFacts, ...facts, name: facts.name ?? null, logo: facts.logo ?? null } : noFacts,
      );
    }
    const type: AssetType =
      change.assetType === 'NFT_APPROVAL_FOR_ALL' ? (erc1155s.has(contract) ? 'ERC1155' : 'ERC721') : change.assetType;
    return formatChange(change, type, { ...noFacts, symbol: symbols.get(contract) ?? null });
  };
  return outcomes.map((outcome, i) => ({
    changes: outcome.error === undefined ? raw[i]!.map(describe) : [],
    gasUsed: outcome.error === undefined ? (outcome.gasUsed ?? null) : null,
    error: outcome.error ?? null,
  }));
}

/** Runs the calls (chained in order) and describes each one's asset changes. */
export async function assetChangesOf(
  deps: AssetChangesDeps,
  network: Network,
  chain: ChainCaller,
  calls: readonly SimulationCall[],
  block: string,
): Promise<AssetChangesResult[]> {
  const key = `${network.config.chain}/${network.config.network}`;
  return describeOutcomes(deps, network, await simulateCalls(chain, deps.memory, key, calls, block));
}

/** `alchemy_simulateAssetChanges [transaction, block?]`. */
export async function simulateAssetChanges(
  deps: AssetChangesDeps,
  network: Network,
  params: unknown,
  chain: ChainCaller,
): Promise<AssetChangesResult> {
  const { calls, block } = parseSingleParams(params);
  const [result] = await assetChangesOf(deps, network, chain, calls, block);
  return result!;
}

/** `alchemy_simulateAssetChangesBundle [[transaction, …], block?]`: one answer per transaction, in order. */
export async function simulateAssetChangesBundle(
  deps: AssetChangesDeps,
  network: Network,
  params: unknown,
  chain: ChainCaller,
): Promise<AssetChangesResult[]> {
  const { calls, block } = parseBundleParams(params);
  return assetChangesOf(deps, network, chain, calls, block);
}
