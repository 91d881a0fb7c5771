/** ERC-7769's error codes for the bundler's JSON-RPC methods. */
export const bundlerErrorCodes = {
  invalidParams: -32602,
  /** The account's validation (or its creation) failed in simulation. */
  rejectedByAccount: -32500,
  /** The paymaster's validation failed in simulation. */
  rejectedByPaymaster: -32501,
  /** A validation rule (opcode, storage access) of ERC-7562 was broken. */
  bannedOpcode: -32502,
  /** Valid only in a time range that is not now (or expires too soon). */
  outOfTimeRange: -32503,
  /** The sender, factory or paymaster is throttled or banned (ERC-7562 reputation, mempool limits). */
  throttled: -32504,
  /** The signature of the account (AA24) or of the paymaster (AA34) does not verify. */
  invalidSignature: -32507,
  /** The paymaster's deposit cannot pay for the op (AA31). */
  paymasterDepositTooLow: -32508,
  /** The call of the UserOperation reverts. */
  executionReverted: -32521,
  methodNotFound: -32601,
  internal: -32603,
} as const;

/** A JSON-RPC error of one bundler call: answered with HTTP 200 and `{error: {code, message, data}}`. */
export class BundlerRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'BundlerRpcError';
  }
}

/** -32602; `field` names the op's field at fault (`callGasLimit`), for callers that answer in another form. */
export const invalidParams = (message: string, field?: string) =>
  new BundlerRpcError(bundlerErrorCodes.invalidParams, message, field === undefined ? undefined : { field });

/** What each EntryPoint error code means, in words a wallet developer can act on. */
const aaReasons: Record<string, string> = {
  AA10: 'the sender is already deployed, yet the operation carries initCode (factory): leave it out',
  AA13: 'the factory (initCode) failed to create the account, or ran out of verificationGasLimit',
  AA14: 'the factory created an account at another address than the sender',
  AA15: 'the factory did not deploy code at the sender address',
  AA20: 'the sender is not deployed and the operation has no initCode (factory) to deploy it',
  AA21: "the sender's deposit and balance cannot pay the prefund (gas limits x maxFeePerGas): send it ETH or use a paymaster",
  AA22: 'the operation is expired or not valid yet (validUntil / validAfter)',
  AA23: "the account's validateUserOp reverted (for most accounts a signature of the wrong length or encoding)",
  AA24: 'the signature does not match the account (wrong owner key, chain id or EntryPoint)',
  AA25: 'the nonce is not the next one for its key',
  AA26: 'verificationGasLimit is too low for the account validation (and its creation): raise it or estimate again',
  AA30: 'the paymaster is not deployed',
  AA31: "the paymaster's deposit cannot pay for the operation",
  AA32: 'the paymaster signature is expired or not valid yet',
  AA33: "the paymaster's validatePaymasterUserOp reverted",
  AA34: 'the paymaster signature does not verify (paymasterData was changed, or signed for other values)',
  AA36: 'paymasterVerificationGasLimit is too low for the paymaster validation: raise it or estimate again',
  AA40: 'the validation of the account and the paymaster used more than verificationGasLimit: raise it or estimate again',
  AA41: "the account's validation used all of verificationGasLimit, leaving none for the paymaster: raise it",
  AA50: 'the paymaster postOp reverted',
  AA51: 'the prefund is lower than the actual gas cost',
  AA90: 'the beneficiary (bundler) address is invalid',
  AA91: 'the EntryPoint could not pay the beneficiary (bundler)',
  AA92: 'an internal EntryPoint call failed',
  AA93: 'paymasterAndData is too short: it must hold the paymaster address (and, from v0.7, its two 16-byte gas limits)',
  AA94: 'gas values overflow (a limit or fee is too large)',
  AA95: 'the bundle ran out of gas',
  AA96: 'the signature aggregator is invalid',
};

/**
 * The EntryPoint's reason (`AA24 signature error`) with what it means.
 * @example explainAaReason('AA21 didn\'t pay prefund') // "AA21 didn't pay prefund: the sender's deposit and balance cannot pay…"
 */
export function explainAaReason(reason: string): string {
  const code = reason.match(/^AA\d\d/)?.[0];
  const words = code ? aaReasons[code] : undefined;
  return words ? `${reason}: ${words}` : reason;
}

/**
 * ERC-7769's code for an EntryPoint reason: a signature that does not verify (the account's AA24, the
 * paymaster's AA34), a time range (AA22, AA32), the paymaster's deposit (AA31), the paymaster's
 * validation (the rest of AA3x), else the account's or its factory's (AA1x, AA2x, AA4x, AA9x). AA23
 * (the account's validation reverted or ran out of gas) is a failure inside the account's validation:
 * -32500, whatever made it revert.
 */
export function codeForAaReason(reason: string): number {
  const code = reason.match(/^AA\d\d/)?.[0];
  if (code === 'AA24' || code === 'AA34') return bundlerErrorCodes.invalidSignature;
  if (code === 'AA22' || code === 'AA32') return bundlerErrorCodes.outOfTimeRange;
  if (code === 'AA31') return bundlerErrorCodes.paymasterDepositTooLow;
  if (code?.startsWith('AA3')) return bundlerErrorCodes.rejectedByPaymaster;
  return bundlerErrorCodes.rejectedByAccount;
}

/** An EntryPoint reason (`AA25 invalid account nonce`) as ERC-7769's error, explained, with more words after it. */
export function aaError(reason: string, detail?: string): BundlerRpcError {
  return new BundlerRpcError(codeForAaReason(reason), `${explainAaReason(reason)}${detail ? ` (${detail})` : ''}`, { reason });
}

/** The same op (same hash) sent again while it is pending: as Rundler and Alto say it. */
export function alreadyKnown(hash: string): BundlerRpcError {
  return invalidParams(`already known: the UserOperation ${hash} is already in the mempool`);
}

/** AA25, said with the nonce that would be accepted (the op's nonce is used, or past a gap). */
export function invalidNonce(detail: string): BundlerRpcError {
  return aaError('AA25 invalid account nonce', detail);
}

/** The EntryPoint's reason for a failed signature, explained: the account's (AA24), the paymaster's (AA34), or either. */
export function signatureFailure(by: 'account' | 'paymaster' | undefined): string {
  if (by === 'paymaster') return explainAaReason('AA34 signature error');
  if (by === 'account') return explainAaReason('AA24 signature error');
  return 'AA24 or AA34 signature error: the signature of the account or of the paymaster does not verify';
}
