import type { SimBehaviour } from './behaviour.ts';
import type { CallAnswerer } from './call-answerer.ts';
import type { CallLog } from './call-log.ts';
import { type CallAnswer, errorReply, type RpcCall } from './json-rpc.ts';
import { rateLimitError } from './rate-limiter.ts';
import type { StallGate } from './stall-gate.ts';

/** What the HTTP and the WebSocket fronts share: the behaviour, the log, the stall gate, the limiter, the node logic. */
export interface SimCore {
  behaviour(): Readonly<SimBehaviour>;
  readonly log: CallLog;
  readonly gate: StallGate;
  /** Which calls the rate limiter lets through (all without a limit); records them as served or refused. */
  admit(calls: RpcCall[]): boolean[];
  readonly answer: CallAnswerer;
}

/**
 * Every call's answer, in order: admitted calls as the node (lagging by `lag`) answers them, through
 * `answerOne` when the front has methods of its own (eth_subscribe); refused ones with the limiter's error.
 */
export function answerInOrder(
  core: SimCore,
  calls: RpcCall[],
  admitted: boolean[],
  lag: number,
  answerOne?: (call: RpcCall) => Promise<CallAnswer> | undefined,
): Promise<CallAnswer[]> {
  const behaviour = core.behaviour();
  return Promise.all(
    calls.map((call, index) => {
      if (!admitted[index]) return errorReply(call, rateLimitError(behaviour.rateLimit!, core.log.receivedInLastSecond()));
      const answer = answerOne?.(call) ?? core.answer(call, behaviour, lag);
      return answer.catch((error: unknown) =>
        errorReply(call, {
          code: -32603,
          message: `provider simulator: ${error instanceof Error ? error.message : String(error)}`,
        }),
      );
    }),
  );
}

export function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
