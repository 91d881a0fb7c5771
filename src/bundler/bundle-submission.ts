import type { Logger } from 'pino';
import type { Hex, PublicClient, TransactionReceipt } from 'viem';
import { cancellationFees, type Fees, type PendingBlockFees, readPendingBlockFees, replacementFees } from './bundle-fees.ts';

/** A bundle not in a block this many blocks after it was sent is replaced. */
const blocksToWait = 2n;
/** Receipts are asked this often: a bundle's ops are answered as soon as it is mined. */
const receiptPollMs = 25;
/** The head is read this often, to count the blocks a bundle has waited. */
const headPollMs = 200;

/** One transaction sent at the bundle's nonce: handleOps of some of its ops, or a cancellation (no ops). */
interface Sent<Row> {
  hash: Hex;
  rows: Row[];
  fees: Fees;
  /** The head when it was sent (it targeted the next block), and when: the clocks of "stuck". */
  head: bigint;
  at: number;
}

export interface BundleSubmission<Row> {
  client: PublicClient;
  logger: Logger;
  /** The chain's floor for tips (Polygon's): replacements never bid under it. */
  minTip?: bigint;
  rows: Row[];
  feesOf(row: Row): Fees;
  /** The first transaction's fees (bundle-fees.ts firstBundleFees) and the block fees they came from. */
  first: { fees: Fees; pending: PendingBlockFees };
  /** Sends handleOps of `rows` at the bundle's nonce. */
  send(rows: Row[], fees: Fees): Promise<Hex>;
  /** Sends an empty transaction at the bundle's nonce. */
  cancel(fees: Fees): Promise<Hex>;
  /** A transaction went out: `rows` are now in it. */
  onSent(hash: Hex, rows: Row[], replaces: Hex | undefined): Promise<void>;
  /** With no new block (a node that mines on demand), a transaction is replaced after this long. */
  stuckAfterMs: number;
  maxReplacements: number;
  /** After the last replacement, how long its receipt is waited for before giving up. */
  receiptTimeoutMs: number;
  /**
   * Asked at each read of the head: the ops the transaction should carry now, when some of `rows`
   * were replaced by their senders since it was sent (a new op of the same nonce); undefined when none.
   */
  swap?(rows: Row[]): Promise<Row[] | undefined>;
}

/**
 * Sends a bundle and watches it until a transaction at its nonce is mined. One not mined within 2
 * blocks is replaced with bumped fees (bundle-fees.ts replacementFees): without the ops that cannot
 * pay them, or, when none can, by an empty transaction that frees the nonce. Answers the mined
 * transaction, its receipt and the ops it carried (none for a cancellation); an earlier transaction
 * can be the one mined, with its own ops. `sent`: every op any of its transactions carried. A bundle
 * an op of which its sender replaced (`swap`) is replaced at once, with the new op in place of the old.
 */
export async function submitBundle<Row>(
  submission: BundleSubmission<Row>,
): Promise<{ hash: Hex; rows: Row[]; receipt: TransactionReceipt; sent: Row[] }> {
  const { client, logger } = submission;
  const history: Sent<Row>[] = [];
  const record = async (hash: Hex, rows: Row[], fees: Fees, head: bigint) => {
    const replaces = history.at(-1)?.hash;
    history.push({ hash, rows, fees, head, at: Date.now() });
    await submission.onSent(hash, rows, replaces);
  };
  await record(
    await submission.send(submission.rows, submission.first.fees),
    submission.rows,
    submission.first.fees,
    submission.first.pending.head,
  );
  let head = submission.first.pending.head;
  let headReadAt = Date.now();
  const sentRows = () => [...new Set(history.flatMap((sent) => sent.rows))];
  for (;;) {
    const mined = await minedOf(client, history);
    if (mined) return { ...mined, sent: sentRows() };
    await new Promise((resolve) => setTimeout(resolve, receiptPollMs));
    let swapped: Row[] | undefined;
    if (Date.now() - headReadAt >= headPollMs) {
      head = await client.getBlockNumber({ cacheTime: 0 });
      headReadAt = Date.now();
      const current = history.at(-1)!.rows;
      if (current.length > 0 && history.length <= submission.maxReplacements) swapped = await submission.swap?.(current);
    }
    const last = history.at(-1)!;
    if (!swapped && head < last.head + blocksToWait && Date.now() - last.at < submission.stuckAfterMs) continue;
    if (history.length > submission.maxReplacements) {
      if (Date.now() - last.at < submission.receiptTimeoutMs) continue;
      throw new Error(`bundle ${last.hash} not mined after ${history.length - 1} replacements`);
    }
    const pending = await readPendingBlockFees(client, submission.minTip);
    try {
      // A swap replaces the transaction with the ops as they are now (each op that can pay the raised fees).
      const offered = swapped ?? last.rows;
      const plan = offered.length > 0 ? replacementFees(last.fees, offered.map(submission.feesOf), pending) : undefined;
      if (plan) {
        const rows = plan.paying.map((index) => offered[index]!);
        await record(await submission.send(rows, plan.fees), rows, plan.fees, pending.head);
      } else {
        const fees = cancellationFees(last.fees, pending);
        await record(await submission.cancel(fees), [], fees, pending.head);
      }
      logger.warn(
        { stuck: last.hash, replacement: history.at(-1)!.hash, ops: history.at(-1)!.rows.length, head: pending.head },
        swapped
          ? 'bundle replaced: an op in it was replaced by its sender'
          : 'bundle not mined within 2 blocks: replaced with higher fees',
      );
    } catch (error) {
      // Often one of its transactions was mined meanwhile ("nonce too low"): the next look finds it.
      logger.warn({ err: error, tx: last.hash }, 'stuck bundle not replaced');
      last.head = pending.head;
      last.at = Date.now();
    }
  }
}

/** The receipt of whichever transaction at the nonce was mined, newest first (the likeliest). */
async function minedOf<Row>(client: PublicClient, history: readonly Sent<Row>[]) {
  for (const sent of [...history].reverse()) {
    const receipt = await client.getTransactionReceipt({ hash: sent.hash }).catch(() => undefined);
    if (receipt) return { hash: sent.hash, rows: sent.rows, receipt };
  }
  return undefined;
}
