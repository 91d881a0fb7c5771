import { createPublicClient, createWalletClient, type Hex, http, type PublicClient, type WalletClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import type { Indexer } from '../../src/indexer/indexer.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** anvil's first default account (public test key). */
export const devAccount = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');

export interface IndexedChain {
  service: TestService;
  indexer: Indexer;
  /** The `chains:` config used, to start a second process of the same deployment. */
  chainsConfig: unknown[];
  publicClient: PublicClient;
  wallet: WalletClient<ReturnType<typeof http>, typeof foundry, typeof devAccount>;
  /** Any anvil method (evm_snapshot, evm_revert, evm_mine, anvil_mine...). */
  anvilRpc(method: string, params?: unknown[]): Promise<unknown>;
  /** Waits until the index holds the chain's current head. */
  synced(): Promise<void>;
}

/** The whole service with the indexer on `ethereum/devnet` (a real automining anvil, a fresh database). */
export async function startIndexedChain(options: { finalityDepth?: number } = {}): Promise<IndexedChain> {
  let anvilUrl = '';
  let chainsConfig: unknown[] = [];
  const service = await startTestService({
    chainsFor: (url) => {
      anvilUrl = url;
      chainsConfig = [
        {
          chain: 'ethereum',
          network: 'devnet',
          chain_id: 31337,
          testnet: true,
          dev_methods: true,
          block_time_s: 0.2,
          finality_depth: options.finalityDepth ?? 2,
          upstreams: [{ url }],
          indexer: { enabled: true },
        },
      ];
      return chainsConfig;
    },
  });
  const indexer = service.service.indexers[0];
  if (!indexer) throw new Error('no indexer started');
  const transport = http(anvilUrl);
  const publicClient = createPublicClient({ chain: foundry, transport }) as PublicClient;
  const wallet = createWalletClient({ chain: foundry, transport, account: devAccount });
  let id = 1;
  const anvilRpc = async (method: string, params: unknown[] = []) => {
    const response = await fetch(anvilUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await response.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };
  const synced = async () => {
    const head = Number(BigInt((await anvilRpc('eth_blockNumber')) as Hex));
    await indexer.waitFor(head, 30_000);
  };
  return { service, indexer, chainsConfig, publicClient, wallet, anvilRpc, synced };
}
