// Watches a backfill through Blockyard's /metrics (the gauge moves as soon as a round commits; the admin
// status row only every second) until the index holds `head` or the time is up.

export interface BackfillProgress {
  caughtUp: boolean;
  indexedBlock: number;
  /** blockyard_indexer_transfers_total{kind="token"}: ERC-20 transfers this process indexed. */
  tokenTransfers: number;
  /** Monotonic µs of the first poll that saw a block indexed, and of the one that saw `head`. */
  firstBlockUs?: number;
  /** Token transfers indexed by the time of `firstBlockUs` (the first round's). */
  firstRoundTransfers: number;
  doneUs: number;
  polls: number;
  /** Scrapes that failed or timed out, and the slowest answer: a busy event loop answers late. */
  failedPolls: number;
  slowestPollMs: number;
}

const pollIntervalMs = 200;
const requestTimeoutMs = 30_000;

export async function watchBackfill(options: {
  baseUrl: string;
  network: string;
  head: number;
  timeoutMs: number;
  log: (line: string) => void;
}): Promise<BackfillProgress> {
  const deadline = Date.now() + options.timeoutMs;
  const labels = `network="${options.network}"`;
  let progress: BackfillProgress = {
    caughtUp: false,
    indexedBlock: -1,
    tokenTransfers: 0,
    firstRoundTransfers: 0,
    doneUs: monotonicUs(),
    polls: 0,
    failedPolls: 0,
    slowestPollMs: 0,
  };
  let lastLogged = Date.now();
  while (Date.now() < deadline) {
    const sentUs = monotonicUs();
    let text: string;
    try {
      text = await scrape(options.baseUrl, Math.max(1, Math.min(requestTimeoutMs, deadline - Date.now())));
    } catch (error) {
      progress = { ...progress, failedPolls: progress.failedPolls + 1 };
      options.log(`GET /metrics failed: ${(error as Error).message}`);
      continue;
    }
    const now = monotonicUs();
    const indexedBlock = gauge(text, 'blockyard_indexer_indexed_block', labels) ?? -1;
    const tokenTransfers = gauge(text, 'blockyard_indexer_transfers_total', `${labels},kind="token"`) ?? 0;
    const firstRound = progress.firstBlockUs === undefined && indexedBlock >= 0;
    progress = {
      caughtUp: indexedBlock >= options.head,
      indexedBlock,
      tokenTransfers,
      ...(progress.firstBlockUs !== undefined ? { firstBlockUs: progress.firstBlockUs } : {}),
      ...(firstRound ? { firstBlockUs: now } : {}),
      firstRoundTransfers: firstRound ? tokenTransfers : progress.firstRoundTransfers,
      doneUs: now,
      polls: progress.polls + 1,
      failedPolls: progress.failedPolls,
      slowestPollMs: Math.max(progress.slowestPollMs, (now - sentUs) / 1000),
    };
    if (progress.caughtUp) return progress;
    if (Date.now() - lastLogged >= 5_000) {
      lastLogged = Date.now();
      options.log(`indexed block ${indexedBlock} of ${options.head}, ${tokenTransfers} token transfers`);
    }
    await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
  }
  return progress;
}

async function scrape(baseUrl: string, timeoutMs: number): Promise<string> {
  const response = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(timeoutMs) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}: ${text.slice(0, 200)}`);
  return text;
}

/** The value of one series in Prometheus text; labels exactly as prom-client prints them. */
function gauge(text: string, name: string, labels: string): number | undefined {
  const prefix = `${name}{${labels}} `;
  for (const line of text.split('\n')) {
    if (line.startsWith(prefix)) return Number(line.slice(prefix.length));
  }
  return undefined;
}

export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}
