import { type Hex, type Log, parseEventLogs } from 'viem';
import { entryPointAbiOf } from './entry-points.ts';
import type { EntryPointVersion } from './user-operation.ts';
import type { UserOperationEventArgs } from './user-operation-receipt.ts';

/** The EntryPoint's events in a bundle transaction's logs, decoded once for all its ops. */
export function entryPointEventsIn(version: EntryPointVersion, logs: Log[]) {
  return parseEventLogs({ abi: entryPointAbiOf(version), logs });
}

export type EntryPointEvents = ReturnType<typeof entryPointEventsIn>;

/**
 * An op's UserOperationEvent among a bundle's events, with its UserOperationRevertReason's bytes when
 * its call reverted; undefined when the bundle did not run it. `hash` is lower-case.
 */
export function userOperationOutcomeIn(
  events: EntryPointEvents,
  hash: string,
): { event: UserOperationEventArgs; revertReason: Hex | undefined } | undefined {
  const event = events.find((entry) => entry.eventName === 'UserOperationEvent' && entry.args.userOpHash.toLowerCase() === hash);
  if (event?.eventName !== 'UserOperationEvent') return undefined;
  const revert = events.find(
    (entry) => entry.eventName === 'UserOperationRevertReason' && entry.args.userOpHash.toLowerCase() === hash,
  );
  return {
    event: event.args,
    revertReason: revert?.eventName === 'UserOperationRevertReason' ? revert.args.revertReason : undefined,
  };
}
