import type { Address } from 'viem';
import type { BundlerContext } from './bundler-context.ts';
import { invalidNonce } from './rpc-errors.ts';
import { SendAgain } from './send-again.ts';
import { earlierAllKnown } from './sender-queue.ts';
import { turnKeyOf } from './sender-turns.ts';
import type { AnyUserOperation } from './user-operation.ts';

/**
 * How long a send whose nonce leaves a gap waits for the missing lower nonces to arrive. A client
 * sending several at once may send the first last (viem looks up the account's deployment for it
 * only): 2.4 s late was seen with 200 ops sent at once on the test machine.
 */
const gapGraceMs = 5_000;

export interface NonceCheck {
  /** The network's name (`chain/network`). */
  name: string;
  entryPoint: Address;
  op: AnyUserOperation;
  /** The nonces of the sender's queued ops on the op's key. */
  queuedNonces: ReadonlySet<bigint>;
  /** This send is already the second try: a gap is not waited on again. */
  again: boolean;
  /** How long a gap is waited on past the last lower send under way here (default 5 s). */
  gapGraceMs?: number;
  /** The refusal for an op whose nonce is used when the op itself was what used it ("already known"), if it was. */
  usedByItself?: () => Promise<Error | undefined>;
}

/**
 * Nonces: the op's must be the next for its key on chain (`onChain`), or the next after this sender's
 * queued ops, or a queued one (a replacement). A gap is waited on a little, once (its lower nonce may
 * be on its way, sent at the same time): SendAgain once it filled, else -32602 nonce too high.
 */
export async function checkNonce(ctx: Pick<BundlerContext, 'db' | 'turns'>, check: NonceCheck, onChain: bigint): Promise<void> {
  const { op, queuedNonces } = check;
  if (op.nonce < onChain) {
    const itself = await check.usedByItself?.().catch(() => undefined);
    throw itself ?? invalidNonce(`nonce too low: ${op.nonce} is used; the next for this key is ${onChain}`);
  }
  let next = onChain;
  while (queuedNonces.has(next)) next++;
  if (queuedNonces.has(op.nonce) || op.nonce <= next) return;
  const turnKey = turnKeyOf(check.name, check.entryPoint, op);
  if (
    !check.again &&
    (await ctx.turns.waitForGap(
      turnKey,
      op.nonce,
      () => earlierAllKnown(ctx.db, check.name, check.entryPoint, op, onChain),
      check.gapGraceMs ?? gapGraceMs,
    ))
  )
    throw new SendAgain();
  throw invalidNonce(
    `nonce too high: ${op.nonce}; the next for this key is ${next} (on chain ${onChain}, ${next - onChain} queued)`,
  );
}
