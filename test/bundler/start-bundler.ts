import { type Address, createPublicClient, type Hex, http, type PublicClient, parseEther } from 'viem';
import type { BundlerClient } from 'viem/account-abstraction';
import { foundry } from 'viem/chains';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';
import { eventually } from '../support/cli.ts';
import { devnetChain, startTestService, type TestService } from '../support/service.ts';
import { bundlerClientFor, bundlerUrlOf, type JsonRpcAnswer, postBundler } from './support.ts';

/** A bundler test's way in: a new key, the bundler endpoint of `ethereum/devnet`, and viem clients of the chain and of the bundler. */
export interface BundlerEndpoint {
  key: string;
  url: string;
  publicClient: PublicClient;
  bundlerClient: BundlerClient;
}

/** Options of the devnet's entry: the bundler is on whatever they say. */
interface DevnetBundlerOptions {
  /** More settings of the devnet's `bundler` entry, e.g. `safe_mode: false`. */
  bundler?: Record<string, unknown>;
}

/** Installs the ERC-4337 contracts on the service's anvil, then makes a key and the clients on it. */
async function bundlerEndpointOf(service: TestService, publicClient: PublicClient): Promise<BundlerEndpoint> {
  await installErc4337Contracts(service.anvil.url);
  const key = (await service.createKey()).key;
  const url = bundlerUrlOf(service.url);
  return { key, url, publicClient, bundlerClient: bundlerClientFor(url, key, publicClient) };
}

/** Stops what `start` made when the set-up after it fails: the test's afterAll has nothing to stop then. */
async function stopOnFailure<T>(stop: () => Promise<void>, setUp: () => Promise<T>): Promise<T> {
  try {
    return await setUp();
  } catch (error) {
    await stop();
    throw error;
  }
}

export interface BundlerService extends BundlerEndpoint {
  service: TestService;
}

/**
 * The whole service on a fresh database and anvil whose `ethereum/devnet` has the bundler on (its
 * executor anvil's account #1), the ERC-4337 contracts installed, and a key with the clients on it.
 */
export async function startBundlerService(
  options: DevnetBundlerOptions & {
    /** More keys of the devnet's chain entry, e.g. `block_time_s`. */
    chain?: Record<string, unknown>;
    /** More chains after the devnet, given the test anvil's URL. */
    moreChains?: (anvilUrl: string) => unknown[];
  } = {},
): Promise<BundlerService> {
  const service = await startTestService({
    settings: { bundler_keys: devnetExecutorKeys[0] },
    chainsFor: (anvilUrl) => [
      devnetChain(anvilUrl, { ...options.chain, bundler: { enabled: true, ...options.bundler } }),
      ...(options.moreChains?.(anvilUrl) ?? []),
    ],
  });
  return stopOnFailure(
    () => service.stop(),
    async () => {
      const publicClient = createPublicClient({ chain: foundry, transport: http(service.anvil.url) }) as PublicClient;
      return { service, ...(await bundlerEndpointOf(service, publicClient)) };
    },
  );
}

export interface BundlerChain extends BundlerEndpoint {
  chain: IndexedChain;
  /** One JSON-RPC call to the bundler endpoint: its answer (result or error) whatever the HTTP status. */
  bundler(method: string, params?: unknown[]): Promise<JsonRpcAnswer>;
  /** Mines a block (automine is off) and waits up to 10 s for the op's receipt; `what` names it in the timeout. */
  mineForReceipt(hash: string, what: string): Promise<JsonRpcAnswer['result']>;
}

/**
 * `startIndexedChain` (the indexer on, blocks every 0.2 s) with the bundler on as `startBundlerService`
 * has it. `accounts` are given their code and 1 ETH: senders that need no deployment.
 */
export async function startBundlerChain(
  options: DevnetBundlerOptions & {
    /** More keys of the devnet's chain entry. */
    chainSettings?: Record<string, unknown>;
    accounts?: readonly { address: Address; code: Hex }[];
  } = {},
): Promise<BundlerChain> {
  const chain = await startIndexedChain({
    settings: { bundler_keys: devnetExecutorKeys[0] },
    chainSettings: { ...options.chainSettings, bundler: { enabled: true, ...options.bundler } },
  });
  return stopOnFailure(
    () => chain.service.stop(),
    async () => {
      const endpoint = await bundlerEndpointOf(chain.service, chain.publicClient);
      for (const { address, code } of options.accounts ?? []) await installAccount(chain, address, code);
      const bundler = async (method: string, params: unknown[] = []) =>
        (await postBundler(endpoint.url, endpoint.key, { jsonrpc: '2.0', id: 1, method, params })).body as JsonRpcAnswer;
      const mineForReceipt = async (hash: string, what: string) => {
        await chain.anvilRpc('evm_mine');
        return eventually(async () => (await bundler('eth_getUserOperationReceipt', [hash])).result ?? undefined, {
          timeoutMs: 10_000,
          intervalMs: 100,
          what,
        });
      };
      return { chain, ...endpoint, bundler, mineForReceipt };
    },
  );
}

/** Puts `code` at `address` with a balance of 1 ETH: an account that is there without a deployment. */
export async function installAccount(chain: Pick<IndexedChain, 'anvilRpc'>, address: Address, code: Hex): Promise<void> {
  await chain.anvilRpc('anvil_setCode', [address, code]);
  await chain.anvilRpc('anvil_setBalance', [address, `0x${parseEther('1').toString(16)}`]);
}
