import type { Hex, PublicClient, TransactionReceipt } from 'viem';
import type { Network } from '../chains/registry.ts';
import { type EntryPoint, entryPointAbiOf, entryPointsOf } from './entry-points.ts';
import { type EntryPointEvents, entryPointEventsIn, userOperationOutcomeIn } from './user-operation-events.ts';

/** How far back an op this bundler never saw is looked for on chain. */
const chainLookbackBlocks = 9_999n;

export interface UserOperationOnChain {
  readonly entryPoint: EntryPoint;
  /** Its bundle's receipt. */
  readonly receipt: TransactionReceipt;
  /** The EntryPoint's events in that receipt (of every op of the bundle). */
  readonly events: EntryPointEvents;
  readonly outcome: NonNullable<ReturnType<typeof userOperationOutcomeIn>>;
}

/**
 * An op this bundler never saw (another bundler's, or one it dropped that landed elsewhere): its
 * UserOperationEvent in the last 10,000 blocks of any of the network's EntryPoints, with its bundle's
 * receipt. `hash` is lower-case.
 */
export async function findUserOperationOnChain(
  client: PublicClient,
  network: Network,
  hash: Hex,
): Promise<UserOperationOnChain | undefined> {
  const head = await client.getBlockNumber({ cacheTime: 0 });
  const fromBlock = head > chainLookbackBlocks ? head - chainLookbackBlocks : 0n;
  for (const entryPoint of entryPointsOf(network)) {
    const logs = await client.getContractEvents({
      address: entryPoint.address,
      abi: entryPointAbiOf(entryPoint.version),
      eventName: 'UserOperationEvent',
      args: { userOpHash: hash },
      fromBlock,
      toBlock: head,
    });
    const found = logs[0];
    if (!found) continue;
    const receipt = await client.getTransactionReceipt({ hash: found.transactionHash });
    const ownLogs = receipt.logs.filter((log) => log.address.toLowerCase() === entryPoint.address.toLowerCase());
    const events = entryPointEventsIn(entryPoint.version, ownLogs);
    const outcome = userOperationOutcomeIn(events, hash);
    if (outcome) return { entryPoint, receipt, events, outcome };
  }
  return undefined;
}
