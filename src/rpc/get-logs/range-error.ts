import { isRangeTooLargeMessage } from '../../chains/range-too-large.ts';

/** Whether a raw JSON-RPC `error` member says the eth_getLogs range is too large for the upstream. */
export function isRangeTooLargeError(rawError: string): boolean {
  let message: unknown;
  try {
    message = (JSON.parse(rawError) as { message?: unknown }).message;
  } catch {
    return false;
  }
  return typeof message === 'string' && isRangeTooLargeMessage(message);
}
