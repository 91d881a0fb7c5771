import type { IndexProgress } from '../chains/network-status.ts';
import { formatBackfillJob } from './backfill-requests.ts';
import type { BackfillJob, BackfillStore } from './backfill-store.ts';
import type { IndexStore } from './store.ts';

/**
 * Each network's saved progress with where its index starts and its backfill: the oldest unfinished
 * job (the one being worked on), else the newest finished one.
 */
export async function readIndexStatus(store: IndexStore, backfills: BackfillStore): Promise<IndexProgress[]> {
  const [rows, origins, jobs] = await Promise.all([store.progress(), backfills.origins(), backfills.list()]);
  return rows.map((row) => {
    const backfill = currentJob(jobs.filter((job) => job.network === row.network));
    return {
      ...row,
      startBlock: origins.get(row.network) ?? null,
      backfill: backfill ? summarize(backfill) : null,
    };
  });
}

function currentJob(newestFirst: readonly BackfillJob[]): BackfillJob | undefined {
  const open = newestFirst.filter((job) => job.status !== 'done');
  return open.at(-1) ?? newestFirst[0];
}

function summarize(job: BackfillJob) {
  const { id, from, to, next, status, blocks_done, blocks_total, blocks_per_second, transfers_per_second, seconds_left } =
    formatBackfillJob(job);
  return { id, from, to, next, status, blocks_done, blocks_total, blocks_per_second, transfers_per_second, seconds_left };
}
