import type { CallFrame } from '../bundler/validation-call-tree.ts';

/** A call (or contract creation) the op's execution made into another address, as a policy's call rules see it. */
export interface ReachedCall {
  /** The address called or created, lower-case. */
  readonly to: string;
  /** The address whose code made it (the sender, or a contract it called), lower-case. */
  readonly from: string;
  /** The 4-byte selector called, lower-case; null for a plain transfer and for a creation. */
  readonly selector: string | null;
  readonly creates: boolean;
}

/** What the op's execution reached, traced by the node, or why it could not be traced. */
export type ExecutionCalls =
  | { readonly kind: 'traced'; readonly calls: readonly ReachedCall[] }
  | { readonly kind: 'untraceable'; readonly reason: string };

/**
 * Every call the op's execution made below its sender, from a `callTracer` trace of the EntryPoint's
 * call to it, in the order they ran (reverted ones too: the sponsor pays for their gas):
 * - CALL, CREATE, CREATE2 and SELFDESTRUCT (its beneficiary) enter another address: each is one;
 * - DELEGATECALL and CALLCODE run another address's code as the caller itself (a proxy's
 *   implementation, a library, a Safe's MultiSend), so they are no call to a target: what that code
 *   calls is walked as the caller's own calls;
 * - STATICCALL only reads: it can change nothing and call nothing that does, so it and all below it
 *   are left out (balance reads, price feeds, ERC-1271 signature checks);
 * - a call into the sender itself (a token sending ETH back, a swap's callback) is the account's own
 *   code and is not one either, but what it calls is.
 * Pure.
 */
export function reachedCallsOf(execution: CallFrame, sender: string): ReachedCall[] {
  const account = sender.toLowerCase();
  const reached: ReachedCall[] = [];
  const walk = (frame: CallFrame) => {
    for (const child of frame.calls ?? []) {
      const type = child.type.toUpperCase();
      if (type === 'STATICCALL') continue;
      const to = (child.to ?? '0x0000000000000000000000000000000000000000').toLowerCase();
      if (type !== 'DELEGATECALL' && type !== 'CALLCODE' && to !== account) {
        const creates = type === 'CREATE' || type === 'CREATE2';
        const input = child.input ?? '0x';
        const selector = creates || type === 'SELFDESTRUCT' || input.length < 10 ? null : input.slice(0, 10).toLowerCase();
        reached.push({ to, from: child.from.toLowerCase(), selector, creates });
      }
      walk(child);
    }
  };
  walk(execution);
  return reached;
}
