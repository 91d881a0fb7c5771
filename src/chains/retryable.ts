import { isRangeTooLargeMessage } from './range-too-large.ts';
import { UpstreamError } from './upstream-client.ts';

/** A node's JSON-RPC error that means "ask another node" (rate limiting or lag). Holds the node's answer unchanged. */
export class RetryableRpcError extends Error {
  constructor(
    readonly text: string,
    readonly code: number,
  ) {
    super(`upstream answered a retryable JSON-RPC error (${code})`);
    this.name = 'RetryableRpcError';
  }
}

export interface AnswerError {
  readonly code: number;
  readonly message: string;
}

/** A revert, a malformed request or an unknown method fails the same way on every node. */
const neverRetriedCodes = new Set([3, -32600, -32601, -32602, -32700]);
/** -32005: limit exceeded (EIP-1474); -32016 and 429: rate limits as some providers number them. */
const retryableCodes = new Set([-32005, -32016, 429]);
/** Messages of a node that is behind, still syncing or rate limiting: another node may well answer. */
const retryableMessages =
  /header not found|unknown block|block not found|missing trie node|not synced|is syncing|still syncing|rate limit|too many requests|limit exceeded|capacity exceeded|request limit reached/i;
const revert = /revert/i;

/**
 * The top-level JSON-RPC error of an upstream's answer, or undefined for a result. Parses only when the
 * text mentions `"error"` at all, so successful answers are never parsed.
 */
export function answerError(text: string): AnswerError | undefined {
  if (text.indexOf('"error"') === -1) return undefined;
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
export function isRetryableAnswerError({ code, message }: AnswerError): boolean {
  if (neverRetriedCodes.has(code) || revert.test(message) || isRangeTooLargeMessage(message)) return false;
  return retryableCodes.has(code) || retryableMessages.test(message);
}

/** Whether a failed attempt may go to another upstream: transport failures and retryable node errors only. */
export function isRetryable(error: unknown): error is UpstreamError | RetryableRpcError {
  return error instanceof UpstreamError || error instanceof RetryableRpcError;
}
