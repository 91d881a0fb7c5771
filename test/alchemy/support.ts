import { Alchemy } from 'alchemy-sdk';
import { type Abi, type Address, parseEther } from 'viem';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { compileContracts } from '../../src/contracts/compile.ts';
import { demoAccounts } from '../../src/demo/demo-plan.ts';
import { type DemoDeployment, deployDemo } from '../../src/demo/deploy-demo.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';
import { forwarderInitCode } from '../transfers/chain-check.ts';

export interface AlchemyChain {
  chain: IndexedChain;
  key: string;
  /** `<base>/v1/rpc/ethereum/devnet/<key>`: what alchemy-sdk is given. */
  url: string;
  alchemy: Alchemy;
  demo: DemoDeployment;
  abis: Map<string, Abi>;
  /** The contract that forwards what it is sent to bob: an internal transfer. */
  forwarder: string;
  /** A raw JSON-RPC call to the URL form (no header), for the exact answer. */
  rpc(method: string, params: unknown): Promise<{ result?: unknown; error?: { code: number; message: string } }>;
}

/**
 * The service with its indexer on a devnet (and its bundler when asked), the demo deployed, plus the transfers the demo does not
 * make: 1.5 ETH to bob (native) and 123 wei through a forwarder contract to bob (internal).
 */
export async function startAlchemyChain(options: { bundler?: boolean } = {}): Promise<AlchemyChain> {
  const chain = await startIndexedChain(
    options.bundler ? { settings: { bundler_keys: devnetExecutorKeys[0] }, chainSettings: { bundler: { enabled: true } } } : {},
  );
  if (options.bundler) await installErc4337Contracts(chain.service.anvil.url);
  const { key } = await chain.service.createKey();
  const url = `${chain.service.url}/v1/rpc/ethereum/devnet/${key}`;
  const demo = await deployDemo({ rpcUrl: chain.service.anvil.url, log: { info: () => undefined } });
  const artifacts = await compileContracts();
  const abis = new Map<string, Abi>([
    [demo.token.toLowerCase(), artifacts.DemoToken.abi],
    [demo.nft.toLowerCase(), artifacts.DemoNft.abi],
    [demo.items.toLowerCase(), artifacts.DemoItems.abi],
  ]);
  await chain.wallet.sendTransaction({ to: demoAccounts.bob, value: parseEther('1.5') });
  const deploy = await chain.wallet.deployContract({ abi: [], bytecode: forwarderInitCode(demoAccounts.bob.toLowerCase()) });
  const forwarder = (await chain.publicClient.waitForTransactionReceipt({ hash: deploy })).contractAddress!.toLowerCase();
  await chain.wallet.sendTransaction({ to: forwarder as Address, value: 123n });
  await chain.synced();
  let id = 1;
  const rpc = async (method: string, params: unknown) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }),
      signal: AbortSignal.timeout(10_000),
    });
    if (response.status !== 200) throw new Error(`${method}: HTTP ${response.status} ${await response.text()}`);
    return (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
  };
  return { chain, key, url, alchemy: new Alchemy({ url }), demo, abis, forwarder, rpc };
}
