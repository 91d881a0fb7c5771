import type { LagDeployment } from './deployment.ts';
import type { LoadTally } from './load-tally.ts';
import { examineDeliveries } from './webhook-checks.ts';

/** Which part of the service keeps a rule: the index and its webhooks, or the tip served to clients (proxy and pool). */
export type InvariantArea = 'index and webhooks' | 'tip served to clients';

/** One rule of the run, how often it broke, and out of what. */
export interface Invariant {
  readonly name: string;
  readonly area: InvariantArea;
  readonly violations: number;
  /** What was checked, e.g. "48211 polls". */
  readonly checked: string;
  /** A broken gating invariant fails the run; the others are reported (other parts of the service own them). */
  readonly gating: boolean;
  readonly samples: readonly string[];
}

/** The invariants of a lag run, from the receiver's deliveries, the service's logs and metrics, and the clients' tallies. */
export async function collectInvariants(input: {
  deployment: LagDeployment;
  tally: LoadTally;
  webhooks: { newBlock: string; activity: string };
  head: number;
}): Promise<Invariant[]> {
  const { deployment, tally, webhooks, head } = input;
  const requests = deployment.receiver.requests;
  const found = examineDeliveries(requests, { newBlock: webhooks.newBlock, others: [webhooks.activity] });
  const activityHashes = requests
    .filter((request) => request.json?.webhook_id === webhooks.activity && !request.json.removed)
    .map((request) => String(request.json.data?.tx_hash).toLowerCase());
  const undelivered = [...tally.mined].filter((hash) => !activityHashes.includes(hash));
  const blocksShort = found.missingBlocks.length + Math.max(0, head - (found.lastBlock ?? -1));
  const samples = (rule: keyof LoadTally) => tally.samples.get(rule) ?? [];
  const rule = (name: string, violations: number, checked: string, gating = true, shown: readonly string[] = []) => ({
    name,
    area: 'index and webhooks' as InvariantArea,
    violations,
    checked,
    gating,
    samples: shown,
  });
  const served = (...args: Parameters<typeof rule>): Invariant => ({ ...rule(...args), area: 'tip served to clients' });
  return [
    rule('webhook deliveries with removed: true', found.removed, `${found.deliveries} deliveries`),
    rule('event ids delivered more than once', found.duplicateIds, `${found.deliveries} deliveries`),
    rule('a block or transfer re-sent under a new event id', found.refired, `${found.deliveries} deliveries`),
    rule(
      'blocks without their new_block delivery',
      blocksShort,
      `blocks ${found.firstBlock}..${head}`,
      true,
      found.missingBlocks.slice(0, 5).map(String),
    ),
    rule(
      'mined transfers without their address_activity delivery',
      undelivered.length,
      `${tally.mined.size} transfers`,
      true,
      undelivered.slice(0, 5),
    ),
    rule(
      'reorgs logged',
      deployment.logs.reorgs.length,
      `${deployment.logs.lineCount()} log lines`,
      true,
      deployment.logs.reorgs.slice(0, 3).map((line) => JSON.stringify(line)),
    ),
    rule(
      'reorgs counted by the indexer',
      await deployment.metric('blockyard_indexer_reorgs_total'),
      'blockyard_indexer_reorgs_total',
    ),
    served(
      'eth_blockNumber lower than one already answered to the client',
      tally.blockNumberWentBack,
      `${tally.blockNumberPolls} polls`,
      true,
      samples('blockNumberWentBack'),
    ),
    served(
      'null receipt for a transaction whose block was already served',
      tally.nullReceiptAfterBlockServed + tally.nullReceiptAfterReceipt,
      `${tally.receiptPolls} receipt polls, ${tally.receiptsFound} transactions`,
      true,
      [...samples('nullReceiptAfterBlockServed'), ...samples('nullReceiptAfterReceipt')],
    ),
    served(
      'latest block older than a block number already answered to the client',
      tally.latestWentBack,
      `${tally.latestReads} reads`,
      false,
      samples('latestWentBack'),
    ),
    served('errors answered to the clients', tally.errors, `${callsOf(tally)} calls`, false, samples('errors')),
    served(
      'transactions whose receipt never came (30 s)',
      tally.receiptsNeverFound,
      `${tally.transactionsSent} transactions`,
      false,
      samples('receiptsNeverFound'),
    ),
  ];
}

function callsOf(tally: LoadTally): number {
  return tally.blockNumberPolls + tally.receiptPolls + tally.latestReads + tally.otherReads + tally.transactionsSent;
}
