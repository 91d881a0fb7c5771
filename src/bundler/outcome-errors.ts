import { BundlerRpcError, bundlerErrorCodes, explainAaReason, signatureFailure } from './rpc-errors.ts';
import type { TimeRange, ValidationOutcome } from './simulation.ts';

/** An op must stay valid at least this long to be worth bundling. */
export const minValiditySeconds = 30;

const outOfRange = (range: TimeRange, now: number) => range.validUntil < now + minValiditySeconds || range.validAfter > now;

/**
 * What a simulation that did not revert still refuses: a signature failure (-32507, AA24 or AA34), or
 * a time range that is not now or ends within 30 s (-32503, AA22 for the account's, AA32 for the
 * paymaster's; v0.6 reports one range for both). Undefined: the op validates.
 */
export function outcomeError(outcome: ValidationOutcome, now: number): BundlerRpcError | undefined {
  if (outcome.sigFailed) {
    const reason = { account: 'AA24', paymaster: 'AA34', unknown: 'AA24 or AA34' }[outcome.sigFailedBy ?? 'unknown'];
    return new BundlerRpcError(bundlerErrorCodes.invalidSignature, signatureFailure(outcome.sigFailedBy), {
      reason: `${reason} signature error`,
    });
  }
  if (!outOfRange(outcome, now)) return undefined;
  const reason = !outcome.ranges
    ? 'AA22 or AA32 expired or not due'
    : outOfRange(outcome.ranges.account, now)
      ? 'AA22 expired or not due'
      : 'AA32 paymaster expired or not due';
  return new BundlerRpcError(
    bundlerErrorCodes.outOfTimeRange,
    `${explainAaReason(reason)}: it is valid from ${outcome.validAfter} until ${outcome.validUntil} (Unix seconds, now ${now}); it must be valid now and for at least ${minValiditySeconds} s more`,
    { reason, validAfter: outcome.validAfter, validUntil: outcome.validUntil },
  );
}
