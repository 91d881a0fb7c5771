import { createPublicClient, createWalletClient, type Hex, http, type PublicClient, type WalletClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import type { Indexer } from '../../src/indexer/indexer.ts';
import { jsonRpc } from '../support/json-rpc.ts';
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
  /**
   * Waits until anvil has mined every transaction sent to it, the index holds the chain's head block (by
   * hash, so a block of a dropped branch does not count) readable through the database, and this
   * service's event listeners got every event committed so far (on Postgres they arrive through the
   * LISTEN relay, after the commit).
   */
  synced(): Promise<void>;
}

/** The whole service with the indexer on `ethereum/devnet` (a real automining anvil, a fresh database). */
export async function startIndexedChain(
  options: {
    finalityDepth?: number;
    settings?: Record<string, unknown>;
    roles?: string;
    logLevel?: string;
    /** More keys of the devnet's chain entry (e.g. `bundler`). */
    chainSettings?: Record<string, unknown>;
    /** The anvil's WebSocket as the upstream's `ws_url` too (subscriptions on the service's WebSocket). */
    upstreamWs?: boolean;
  } = {},
): Promise<IndexedChain> {
  let anvilUrl = '';
  let chainsConfig: unknown[] = [];
  const service = await startTestService({
    settings: options.settings,
    roles: options.roles,
    logLevel: options.logLevel ?? process.env.TEST_LOG_LEVEL,
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
          // Final at a depth, as the embedded devnet (anvil's own tags, head - 64, unless chainSettings says tags).
          finality: 'depth',
          finality_depth: options.finalityDepth ?? 2,
          upstreams: [{ url, ...(options.upstreamWs ? { ws_url: url.replace(/^http/, 'ws') } : {}) }],
          indexer: { enabled: true },
          ...options.chainSettings,
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
  const anvilRpc = (method: string, params: unknown[] = []) => jsonRpc(anvilUrl, method, params);
  // Subscribed before the indexer's first commit: it starts once the lease is taken, after a database round trip.
  let deliveredSeq = 0n;
  const seqWaiters = new Set<{ seq: bigint; resolve: () => void }>();
  service.service.events.subscribe((events) => {
    for (const event of events) if (BigInt(event.seq) > deliveredSeq) deliveredSeq = BigInt(event.seq);
    for (const waiter of seqWaiters) if (deliveredSeq >= waiter.seq) waiter.resolve();
  });
  const delivered = (seq: bigint, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      if (deliveredSeq >= seq) return resolve();
      const waiter = {
        seq,
        resolve: () => {
          clearTimeout(timer);
          seqWaiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        seqWaiters.delete(waiter);
        reject(new Error(`chain event ${seq} not delivered within ${timeoutMs} ms (delivered up to ${deliveredSeq})`));
      }, timeoutMs);
      seqWaiters.add(waiter);
    });
  // anvil answers eth_sendRawTransaction before its automine has mined the block; a transaction leaves the pool once mined.
  const mined = async (timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { pending } = (await anvilRpc('txpool_status')) as { pending: Hex };
      if (BigInt(pending) === 0n) return;
      if (Date.now() > deadline) throw new Error(`anvil still has ${BigInt(pending)} transactions to mine after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  const synced = async () => {
    await mined(10_000);
    const head = (await anvilRpc('eth_getBlockByNumber', ['latest', false])) as { number: Hex; hash: string };
    await indexer.waitFor({ number: Number(BigInt(head.number)), hash: head.hash }, 30_000);
    const committed = await service.database.db
      .selectFrom('chain_events')
      .select((eb) => eb.fn.max('seq').as('seq'))
      .executeTakeFirst();
    await delivered(BigInt(committed?.seq ?? 0), 10_000);
  };
  return { service, indexer, chainsConfig, publicClient, wallet, anvilRpc, synced };
}
