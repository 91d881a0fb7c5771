import { networkKey } from '../chains/network-key.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { conflict, invalidRequest } from '../core/errors.ts';
import type { BackfillJob, BackfillStore } from './backfill-store.ts';

/**
 * Checks a backfill request against the network's index and records the job (or finds the unfinished
 * one of the same range); the lease holder of the network works through it. `to` defaults to the
 * block just below where the index starts, and may not reach it: from there on the head indexes.
 */
export async function requestBackfill(
  deps: { chains: ChainRegistry; backfills: BackfillStore },
  request: { network: string; from: number; to?: number },
): Promise<BackfillJob> {
  const indexed = deps.chains
    .list()
    .filter((network) => network.config.kind === 'evm' && network.config.indexer.enabled)
    .map(networkKey);
  if (!indexed.includes(request.network)) {
    const known = indexed.length > 0 ? indexed.join(', ') : 'none';
    throw invalidRequest('network', `'${request.network}' is not an indexed network (indexed: ${known})`);
  }
  const origin = await deps.backfills.origin(request.network);
  if (origin === undefined)
    throw conflict(`the index of ${request.network} has not started yet: start the service with the indexer, then backfill`);
  const to = request.to ?? origin - 1;
  if (to >= origin)
    throw invalidRequest(
      'to',
      `must be below ${origin}, where the index of ${request.network} starts (it indexes from there on)`,
    );
  if (request.from > to) {
    const problem =
      origin === 0 ? `the index of ${request.network} starts at block 0: nothing below it to fill` : `must be at most ${to}`;
    throw invalidRequest('from', problem);
  }
  return deps.backfills.create(request.network, request.from, to);
}

/** A job as the admin API answers it: its progress and, while it runs, the time left at its rate. */
export function formatBackfillJob(job: BackfillJob) {
  const total = job.to - job.from + 1;
  const done = job.next - job.from;
  const left = total - done;
  return {
    id: job.id,
    network: job.network,
    from: job.from,
    to: job.to,
    next: job.next,
    status: job.status,
    blocks_total: total,
    blocks_done: done,
    transfers: job.transfers,
    blocks_per_second: job.blocksPerSecond,
    transfers_per_second: job.transfersPerSecond,
    seconds_left: left === 0 ? 0 : job.blocksPerSecond > 0 ? Math.ceil(left / job.blocksPerSecond) : null,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
    finished_at: job.finishedAt,
  };
}
