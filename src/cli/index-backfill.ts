import { type AdminResponse, sendAdminRequest } from './admin-request.ts';
import { formatBackfillLine } from './backfill-progress-line.ts';

interface BackfillFlags {
  network?: string;
  from?: string;
  to?: string;
  detach?: boolean;
}

interface JobAnswer {
  id: string;
  network: string;
  from: number;
  to: number;
  status: 'pending' | 'running' | 'done';
  blocks_total: number;
  blocks_done: number;
  transfers: number;
  blocks_per_second: number;
  transfers_per_second: number;
  seconds_left: number | null;
}

const followEveryMs = 1000;
/** Without a terminal (a log file, CI) a line this often instead of one redrawn in place. */
const plainLineEveryMs = 10_000;

/**
 * `blockyard index backfill --network chain/network --from N [--to M] [--detach]`: records the job in
 * the running service (the indexer works through it in the background) and follows it with a progress
 * line until done. Ctrl-C stops following only; the same command again follows the same job.
 */
export async function runIndexBackfill(flags: BackfillFlags, server: { base: string; token: string }): Promise<number> {
  const body = parseBackfillFlags(flags);
  const call = (method: string, path: string, payload?: unknown) =>
    sendAdminRequest(new URL(path, server.base), {
      method,
      token: server.token,
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
      timeoutMs: 30_000,
    });
  const created = await call('POST', '/admin/index/backfills', body);
  if (!created.ok) return failed(created);
  let job = JSON.parse(created.text) as JobAnswer;
  if (flags.detach || job.status === 'done') {
    process.stdout.write(`${created.text}\n`);
    return 0;
  }
  const again = `blockyard index backfill --network ${job.network} --from ${job.from} --to ${job.to}`;
  const interrupted = () => {
    process.stderr.write(`\nbackfill ${job.id} goes on in the service; follow it again with: ${again}\n`);
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  const tty = process.stderr.isTTY === true;
  let lastPlainLine = 0;
  try {
    for (;;) {
      const line = formatBackfillLine(job);
      if (tty) process.stderr.write(`\r${line}\x1b[K`);
      else if (Date.now() - lastPlainLine >= plainLineEveryMs || job.status === 'done') {
        process.stderr.write(`${line}\n`);
        lastPlainLine = Date.now();
      }
      if (job.status === 'done') break;
      await new Promise((resolve) => setTimeout(resolve, followEveryMs));
      const answer = await call('GET', `/admin/index/backfills/${encodeURIComponent(job.id)}`);
      if (!answer.ok) return failed(answer);
      job = JSON.parse(answer.text) as JobAnswer;
    }
  } finally {
    process.off('SIGINT', interrupted);
  }
  if (tty) process.stderr.write('\n');
  process.stdout.write(`${JSON.stringify(job)}\n`);
  return 0;
}

function failed(answer: AdminResponse): number {
  process.stderr.write(`${answer.text}\n`);
  return 1;
}

function parseBackfillFlags(flags: BackfillFlags): { network: string; from: number; to?: number } {
  if (!flags.network) throw usageError('--network is required, e.g. --network base/mainnet');
  if (!/^[^/\s]+\/[^/\s]+$/.test(flags.network))
    throw usageError(`--network must be chain/network, e.g. base/mainnet (got '${flags.network}')`);
  if (flags.from === undefined) throw usageError('--from is required: the first block to fill');
  const from = blockNumber(flags.from, '--from');
  if (flags.to === undefined) return { network: flags.network, from };
  const to = blockNumber(flags.to, '--to');
  if (to < from) throw usageError(`--to (${to}) must not be below --from (${from})`);
  return { network: flags.network, from, to };
}

function blockNumber(value: string, name: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw usageError(`${name} must be a block number (a whole number), got '${value}'`);
  return Number(value);
}

function usageError(message: string): Error {
  return Object.assign(new Error(message), { code: 'ERR_PARSE_ARGS_INVALID' });
}
