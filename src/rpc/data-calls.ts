import { isDataMethod } from '../alchemy/method-names.ts';
import type { Principal } from '../auth/principal.ts';
import type { CheckedCall } from '../jsonrpc/messages.ts';
import type { DataQuerySlots } from '../limits/data-query-slots.ts';

/**
 * One of the account's data-query slots for a request (HTTP body or WebSocket message) that holds a
 * data call (src/alchemy/method-names.ts `isDataMethod`), or undefined when it holds none. Throws 429
 * when the account's slots are all taken. Its data calls then run one at a time (`oneAtATime`), so a
 * batch of 50 is one query at a time, not 50.
 */
export async function takeDataSlot(
  slots: DataQuerySlots | undefined,
  principal: Principal,
  calls: readonly CheckedCall[],
): Promise<(() => void) | undefined> {
  if (slots === undefined || !calls.some((checked) => checked.ok && isDataMethod(checked.call.method))) return undefined;
  return slots.take(principal.accountId);
}

/** Runs the tasks it is given one after another, in the order given (a failed one does not stop the next). */
export function oneAtATime(): <T>(task: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = last.then(task, task);
    last = run.catch(() => undefined);
    return run;
  };
}
