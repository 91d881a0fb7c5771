import type { Logger } from 'pino';
import type { ChainRegistry, Network } from '../chains/registry.ts';
import type { NftStandard } from '../db/tables/chain-index.ts';
import type { ChainEvent, ChainEventListener } from '../events/chain-event.ts';
import { metadataUpdateOf } from './metadata-update-events.ts';

export interface MetadataJob {
  readonly network: Network;
  /** Lower-case address. */
  readonly contract: string;
  /** Decimal string. */
  readonly tokenId: string;
  /** Known from the event that queued the job; else detected by ERC-165. */
  readonly standard?: NftStandard;
  /** The metadata changed (EIP-4906): fetch again after any fetch under way, which may have read the old URI. */
  readonly refetch?: boolean;
}

export interface NftMetadataFetcher {
  /** Queues a (re)fetch; a token already queued is not queued twice; a full queue drops the job (and logs it). */
  enqueue(job: MetadataJob): void;
  /** For the indexer: a token was minted, fetch its metadata now. */
  onMinted(network: Network, contract: string, tokenId: bigint | string, standard?: NftStandard): void;
  /**
   * Subscribe it to the chain event stream: every mint (an `nft_transfer` from the zero address) queues a
   * fetch, and every EIP-4906 `MetadataUpdate` a fetch again; a `BatchMetadataUpdate` fetches again the
   * tokens of its range that have metadata stored (the others are fetched when first asked for).
   */
  readonly listener: ChainEventListener;
  /** Resolves when the queue is empty and nothing runs. */
  idle(): Promise<void>;
  /** Stops taking jobs, drops the queued ones and waits for those running. */
  close(): Promise<void>;
}

const zeroAddress = '0x0000000000000000000000000000000000000000';
// A few fetches at once: each may wait for a slow host for the whole metadata timeout.
const defaultConcurrency = 4;
// A mint of a 10,000-token collection queues 10,000 jobs; past this the rest waits for a request or a refresh.
const defaultMaxQueued = 50_000;

/** A bounded-concurrency queue of metadata fetches, fed by mints and by requests that found stale failures. */
export function createNftMetadataFetcher(deps: {
  chains: Pick<ChainRegistry, 'get'>;
  run: (job: MetadataJob) => Promise<unknown>;
  /** Token ids (decimal) of a contract with metadata stored, in [from, to], ascending, at most `limit`. */
  storedTokenIds?: (network: Network, contract: string, from: bigint, to: bigint, limit: number) => Promise<string[]>;
  logger: Logger;
  concurrency?: number;
  maxQueued?: number;
}): NftMetadataFetcher {
  const concurrency = deps.concurrency ?? defaultConcurrency;
  const maxQueued = deps.maxQueued ?? defaultMaxQueued;
  const queue = new Map<string, MetadataJob>();
  const running = new Set<Promise<void>>();
  let idleWaiters: (() => void)[] = [];
  let closed = false;

  function pump(): void {
    while (!closed && running.size < concurrency && queue.size > 0) {
      const [key, job] = queue.entries().next().value as [string, MetadataJob];
      queue.delete(key);
      const task: Promise<void> = deps
        .run(job)
        .then(
          () => undefined,
          (error: unknown) =>
            deps.logger.warn({ err: error, contract: job.contract, tokenId: job.tokenId }, 'NFT metadata fetch failed'),
        )
        .finally(() => {
          running.delete(task);
          pump();
        });
      running.add(task);
    }
    if (running.size === 0 && queue.size === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  function enqueue(job: MetadataJob): void {
    if (closed) return;
    const key = `${job.network.config.chain}/${job.network.config.network}/${job.contract}/${job.tokenId}`;
    if (queue.has(key)) return;
    if (queue.size >= maxQueued) {
      deps.logger.warn({ contract: job.contract, tokenId: job.tokenId }, 'NFT metadata queue full: fetch dropped');
      return;
    }
    queue.set(key, job);
    pump();
  }

  function networkOf(event: ChainEvent): Network | undefined {
    const [chain, name] = event.network.split('/');
    try {
      return deps.chains.get(chain ?? '', name ?? '');
    } catch {
      return undefined;
    }
  }

  function onMint(event: ChainEvent): void {
    const data = event.data as { contract?: unknown; from?: unknown; token_id?: unknown; standard?: unknown };
    if (String(data.from).toLowerCase() !== zeroAddress || typeof data.contract !== 'string') return;
    const network = networkOf(event);
    if (network === undefined) return;
    const standard = data.standard === 'ERC721' || data.standard === 'ERC1155' ? data.standard : undefined;
    enqueue({ network, contract: data.contract.toLowerCase(), tokenId: String(data.token_id), standard });
  }

  function onLog(event: ChainEvent): void {
    const update = metadataUpdateOf(event.data);
    if (update === undefined) return;
    const network = networkOf(event);
    if (network === undefined) return;
    const { contract } = update;
    if ('tokenId' in update) {
      enqueue({ network, contract, tokenId: update.tokenId.toString(), refetch: true });
      return;
    }
    const stored = deps.storedTokenIds;
    if (stored === undefined || update.toTokenId < update.fromTokenId) return;
    stored(network, contract, update.fromTokenId, update.toTokenId, maxQueued).then(
      (tokenIds) => {
        for (const tokenId of tokenIds) enqueue({ network, contract, tokenId, refetch: true });
      },
      (error: unknown) =>
        deps.logger.warn({ err: error, contract }, 'NFT metadata: the tokens of a BatchMetadataUpdate could not be read'),
    );
  }

  function onEvents(events: readonly ChainEvent[]): void {
    for (const event of events) {
      if (event.removed || closed) continue;
      if (event.type === 'nft_transfer') onMint(event);
      else if (event.type === 'log') onLog(event);
    }
  }

  return {
    enqueue,
    onMinted(network, contract, tokenId, standard) {
      enqueue({ network, contract: contract.toLowerCase(), tokenId: BigInt(tokenId).toString(), standard });
    },
    listener: onEvents,
    idle() {
      if (running.size === 0 && queue.size === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async close() {
      closed = true;
      queue.clear();
      await Promise.allSettled([...running]);
      pump();
    },
  };
}
