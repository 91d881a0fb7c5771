import { idempotentSender } from './idempotent-send.ts';
import type { PooledUpstream } from './pooled-upstream.ts';
import { answerError, RetryableRpcError } from './retryable.ts';

/**
 * Sends a write to every target and answers with the first success; the other sends go on, so the
 * transaction reaches every node. When all fail, the most informative answer wins: a node's final
 * JSON-RPC error (e.g. "nonce too low" for another transaction, unchanged), then a retryable one, then a
 * transport failure. The same signed transaction sent again answers its hash (see idempotent-send.ts).
 */
export function broadcastWrite(targets: readonly PooledUpstream[], body: string): Promise<string> {
  const send = idempotentSender(body);
  return new Promise((resolve, reject) => {
    let pending = targets.length;
    let answered = false;
    let finalError: string | undefined;
    let retryableError: string | undefined;
    let failure: unknown;
    const settled = () => {
      if (--pending > 0 || answered) return;
      answered = true;
      const text = finalError ?? retryableError;
      if (text !== undefined) resolve(text);
      else reject(failure);
    };
    for (const target of targets) {
      send(target).then(
        (text) => {
          if (answerError(text) !== undefined) finalError ??= text;
          else if (!answered) {
            answered = true;
            resolve(text);
          }
          settled();
        },
        (error: unknown) => {
          if (error instanceof RetryableRpcError) retryableError ??= error.text;
          else failure ??= error;
          settled();
        },
      );
    }
  });
}
