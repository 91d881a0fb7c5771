import type { Hex, PublicClient, TransactionReceipt } from 'viem';
import type { UserOperationRow } from '../db/tables/bundler.ts';
import { entryPointEventsIn, userOperationOutcomeIn } from './user-operation-events.ts';

export interface MinedOutcome {
  readonly receipt: TransactionReceipt;
  readonly outcome: NonNullable<ReturnType<typeof userOperationOutcomeIn>>;
}

/**
 * A submitted op's bundle as the node has it in a block, before the bundler records the inclusion:
 * undefined while the bundle is not mined, when it reverted or does not carry the op (the bundler then
 * puts the op back or drops it), or when the node cannot be asked.
 */
export async function minedBundleOf(client: PublicClient, row: UserOperationRow): Promise<MinedOutcome | undefined> {
  if (row.status !== 'submitted' || !row.tx_hash) return undefined;
  let receipt: TransactionReceipt;
  try {
    receipt = await client.getTransactionReceipt({ hash: row.tx_hash as Hex });
  } catch {
    return undefined;
  }
  if (receipt.status !== 'success') return undefined;
  const outcome = userOperationOutcomeIn(entryPointEventsIn(row.entry_point_version, receipt.logs), row.hash);
  return outcome ? { receipt, outcome } : undefined;
}
