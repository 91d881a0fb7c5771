const barWidth = 24;

/** One line of a backfill's progress: bar, blocks, rates and the time left at the current rate. */
export function formatBackfillLine(job: {
  id: string;
  network: string;
  from: number;
  to: number;
  status: string;
  blocks_total: number;
  blocks_done: number;
  blocks_per_second: number;
  transfers_per_second: number;
  seconds_left: number | null;
}): string {
  const share = job.blocks_total === 0 ? 1 : job.blocks_done / job.blocks_total;
  const filled = Math.round(share * barWidth);
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}]`;
  const count = (value: number) => Math.round(value).toLocaleString('en-US');
  const left =
    job.status === 'done' ? 'done' : job.seconds_left === null ? 'time left unknown' : `${duration(job.seconds_left)} left`;
  return (
    `${job.network} backfill ${job.id} ${job.from}-${job.to} ${bar} ${(share * 100).toFixed(1)}% ` +
    `${count(job.blocks_done)}/${count(job.blocks_total)} blocks, ${count(job.blocks_per_second)} blocks/s, ` +
    `${count(job.transfers_per_second)} transfers/s, ${left}`
  );
}

function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : `${m}:${String(s).padStart(2, '0')}`;
}
