import {
  type Account,
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { multicall3Address } from '../../src/chains/public-client.ts';
import { type ContractArtifacts, type ContractName, compileContracts } from '../../src/contracts/compile.ts';
import { installMulticall3 } from '../../src/contracts/install-multicall3.ts';

/** anvil's first default account (well known, funded with 10,000 ETH on every fresh anvil). */
export const deployerAccount = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');

/** anvil's chain (31337) with Multicall3 named, so viem's `multicall` works against it. */
export const anvilChain: Chain = { ...foundry, contracts: { multicall3: { address: multicall3Address } } };

export interface TestContracts {
  token: Address;
  nft: Address;
  items: Address;
  priceFeed: Address;
  artifacts: ContractArtifacts;
  wallet: WalletClient<Transport, Chain, Account>;
  publicClient: PublicClient<Transport, Chain>;
}

/**
 * Deploys one of each demo contract from anvil's first account and installs Multicall3:
 * DemoToken('Test Token', 'TST', 18), DemoNft('Test NFT', 'TNFT'),
 * DemoItems('Test Items', 'TITEM', 'ipfs://test-items/{id}.json'), DemoPriceFeed(8, 'ETH / USD', 3000e8).
 * Nothing is minted: each test sets the state it checks.
 */
export async function deployTestContracts(anvilUrl: string): Promise<TestContracts> {
  const transport = http(anvilUrl, { timeout: 10_000, retryCount: 0 });
  const wallet = createWalletClient({ account: deployerAccount, chain: anvilChain, transport });
  const publicClient = createPublicClient({ chain: anvilChain, transport });
  const artifacts = await compileContracts();
  await installMulticall3(anvilUrl);

  const deploy = async (name: ContractName, args: readonly unknown[]): Promise<Address> => {
    const { abi, bytecode } = artifacts[name];
    const hash: Hex = await wallet.deployContract({ abi, bytecode, args });
    const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 });
    if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying ${name} failed (${hash})`);
    return receipt.contractAddress;
  };
  return {
    token: await deploy('DemoToken', ['Test Token', 'TST', 18]),
    nft: await deploy('DemoNft', ['Test NFT', 'TNFT']),
    items: await deploy('DemoItems', ['Test Items', 'TITEM', 'ipfs://test-items/{id}.json']),
    priceFeed: await deploy('DemoPriceFeed', [8, 'ETH / USD', 3000n * 10n ** 8n]),
    artifacts,
    wallet,
    publicClient,
  };
}
