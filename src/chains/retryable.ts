import { UpstreamError } from '../core/upstream-error.ts';
import { isRangeTooLargeMessage } from './range-too-large.ts';
import { isRateLimitAnswer } from './retry-after.ts';

/** A node's JSON-RPC error that means "ask another node" (rate limiting or lag). Holds the node's answer unchanged. */
export class RetryableRpcError extends Error {
  constructor(
    readonly text: string,
    readonly code: number,
    /** `rate_limited`: the node refuses for now; `behind`: it lacks the block or state (lag, pruning, syncing). */
    readonly kind: RetryableKind = 'behind',
  ) {
    super(`upstream answered a retryable JSON-RPC error (${code})`);
    this.name = 'RetryableRpcError';
  }
}

export interface AnswerError {
  readonly code: number;
  readonly message: string;
}

export type RetryableKind = 'rate_limited' | 'behind';

/** A revert, a malformed request or an unknown method fails the same way on every node. */
const neverRetriedCodes = new Set([3, -32600, -32601, -32602, -32700]);
/** -32005: limit exceeded (EIP-1474); -32016 and 429: rate limits as some providers number them. */
const retryableCodes = new Set([-32005, -32016, 429]);
/** Messages of a node that is behind, pruned or still syncing: a node that has the block may well answer. */
const behindMessages =
  /header not found|unknown block|block not found|missing trie node|historical state .* is not available|state (is )?not available|not synced|is syncing|still syncing|pruned/i;

const revert = /revert/i;

/**
 * The top-level JSON-RPC error of an upstream's answer, or undefined for a result. Parses only when the
 * text mentions `"error"` at all, so successful answers are never parsed.
 */
export function answerError(text: string): AnswerError | undefined {
  // A batch's answer is an array, which has no top-level error: not worth scanning its megabytes.
  if (!text.trimStart().startsWith('{') || text.indexOf('"error"') === -1) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const error = (parsed as { error?: unknown }).error;
  if (error === null || typeof error !== 'object') return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return { code: typeof code === 'number' ? code : Number.NaN, message: typeof message === 'string' ? message : '' };
}

/** Whether a node's JSON-RPC error may be asked of another node: an allowlist, never a revert or a bad request. */
export function isRetryableAnswerError(error: AnswerError): boolean {
  return retryableKindOf(error) !== undefined;
}

/** Why another node may answer a node's JSON-RPC error, or undefined when every node would say the same. */
export function retryableKindOf({ code, message }: AnswerError): RetryableKind | undefined {
  if (neverRetriedCodes.has(code) || revert.test(message) || isRangeTooLargeMessage(message)) return undefined;
  if (behindMessages.test(message)) return 'behind';
  if (retryableCodes.has(code) || isRateLimitAnswer(code, message)) return 'rate_limited';
  return undefined;
}

/** Whether a failed attempt may go to another upstream: transport failures and retryable node errors only. */
export function isRetryable(error: unknown): error is UpstreamError | RetryableRpcError {
  return error instanceof UpstreamError || error instanceof RetryableRpcError;
}
