import { type LagDatabase, type LagDeployment, startLagDeployment } from './deployment.ts';
import { collectInvariants, type Invariant } from './invariants.ts';
import { allLagModes, type LagEpisodes, runLagEpisodes } from './lag-episodes.ts';
import { defaultLoad, type LoadShape, type RunningLoad, startLoad } from './lag-load.ts';

export interface LagScenarioOptions {
  durationMs: number;
  database: LagDatabase;
  seed: number;
  /** anvil's interval mining (and the network's block_time_s). Default 1 s. */
  blockTimeS?: number;
  load?: Partial<LoadShape>;
  /** How long an episode lags and how long the upstream is synced between two (ms). */
  episodes?: { lagMs: readonly [number, number]; syncedMs: readonly [number, number] };
  /** Progress lines (every 30 s, and at each phase). */
  progress?: (line: string) => void;
}

export interface LagScenarioResult {
  readonly invariants: readonly Invariant[];
  /** What the run was: blocks, calls, episodes, the lagging upstream's share. */
  readonly facts: readonly (readonly [string, string])[];
  /** No gating invariant broken. */
  readonly passed: boolean;
}

/** Addresses the senders pay in turn; an address_activity webhook watches them. */
const watched = ['0x00000000000000000000000000000000000a11ce', '0x0000000000000000000000000000000000000b0b'];

/**
 * Issue 32's must-show: the service with an honest upstream and one that lags 1-2 blocks in episodes
 * (both simulators in front of one anvil, so any reorg is false), under a load of eth_blockNumber
 * pollers, transaction senders that wait for their receipts, and steady readers, with a new_block and
 * an address_activity webhook delivering to a real receiver. Returns the invariants and their counts.
 */
export async function runLagScenario(options: LagScenarioOptions): Promise<LagScenarioResult> {
  const say = options.progress ?? (() => {});
  const blockTimeS = options.blockTimeS ?? 1;
  const deployment = await startLagDeployment({
    database: options.database,
    blockTimeS,
    configBlockTimeS: blockTimeS,
    honestLatencyMs: 5,
  });
  let load: RunningLoad | undefined;
  let episodes: LagEpisodes | undefined;
  try {
    const newBlock = await deployment.createWebhook('new_block');
    const activity = await deployment.createWebhook('address_activity', { addresses: watched });
    const startBlock = Number(await deployment.anvilRpc('eth_blockNumber'));
    say(`service at ${deployment.service.url}, upstreams: lagging ${deployment.lagging.url}, honest ${deployment.honest.url}`);
    load = startLoad(deployment.service.url, deployment.key, watched, { ...defaultLoad, ...options.load });
    episodes = runLagEpisodes(deployment.lagging, {
      ...(options.episodes ?? { lagMs: [2_000, 8_000], syncedMs: [1_000, 6_000] }),
      modes: allLagModes,
      seed: options.seed,
    });
    await runFor(options.durationMs, deployment, load, episodes, say);
    say('load stopped; waiting for the index and the webhooks to catch up');
    await Promise.all([load.stop(), episodes.stop()]);
    const head = await drain(deployment, newBlock);
    const invariants = await collectInvariants({ deployment, tally: load.tally, webhooks: { newBlock, activity }, head });
    const facts = await factsOf(deployment, load, episodes, startBlock, head, options.durationMs);
    return { invariants, facts, passed: invariants.every((invariant) => !invariant.gating || invariant.violations === 0) };
  } finally {
    await load?.stop();
    await episodes?.stop();
    await deployment.stop();
  }
}

async function runFor(
  durationMs: number,
  deployment: LagDeployment,
  load: RunningLoad,
  episodes: LagEpisodes,
  say: (line: string) => void,
): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < durationMs) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(30_000, durationMs - (Date.now() - started))));
    const { tally } = load;
    const lagEpisodes = [...episodes.started.values()].reduce((sum, count) => sum + count, 0);
    say(
      `${Math.round((Date.now() - started) / 1000)} s: block ${await deployment.anvilRpc('eth_blockNumber')}, ` +
        `${tally.blockNumberPolls} eth_blockNumber, ${tally.transactionsSent} transactions, ${tally.latestReads} latest reads, ` +
        `${lagEpisodes} lag episodes, ${deployment.receiver.requests.length} webhook deliveries`,
    );
  }
}

/** Waits until the index holds anvil's head and the new_block webhook delivered it; the head's number. */
async function drain(deployment: LagDeployment, newBlock: string): Promise<number> {
  const head = (await deployment.anvilRpc('eth_getBlockByNumber', ['latest', false])) as { number: string; hash: string };
  const number = Number(head.number);
  await deployment.service.service.indexers[0]!.waitFor({ number, hash: head.hash }, 60_000);
  await deployment.receiver.waitFor(
    (requests) =>
      requests.some((request) => request.json?.webhook_id === newBlock && Number(request.json.data?.block_number) >= number),
    60_000,
    `the new_block delivery of block ${number}`,
  );
  // Deliveries of one round go out together: give the last ones a moment.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return number;
}

async function factsOf(
  deployment: LagDeployment,
  load: RunningLoad,
  episodes: LagEpisodes,
  startBlock: number,
  head: number,
  durationMs: number,
): Promise<[string, string][]> {
  const { tally } = load;
  const metric = deployment.metric;
  return [
    ['duration', `${(durationMs / 60_000).toFixed(1)} min`],
    ['blocks mined', `${head - startBlock} (to block ${head})`],
    ['lag episodes', [...episodes.started].map(([mode, count]) => `${count} ${mode}`).join(', ')],
    [
      'client calls',
      `${tally.blockNumberPolls} eth_blockNumber, ${tally.receiptPolls} receipts, ${tally.latestReads} latest blocks, ${tally.otherReads} other reads, ${tally.transactionsSent} transactions`,
    ],
    ['calls to the upstreams', `lagging ${deployment.lagging.calls()}, honest ${deployment.honest.calls()}`],
    [
      'answers of the lagging upstream not used (it lacked the block)',
      String(await metric('blockyard_upstream_missing_answers_total', { upstream: 'lagging' })),
    ],
    ['index rounds that waited for a block no upstream had', String(await metric('blockyard_indexer_blocks_unavailable_total'))],
    ['failed index rounds', String(await metric('blockyard_indexer_errors_total'))],
    ['webhook deliveries', String(deployment.receiver.requests.length)],
  ];
}
