import { AppError } from '../core/errors.ts';
import type { UpstreamError } from '../core/upstream-error.ts';
import { upstreamErrorIn } from '../core/upstream-error-in.ts';
import { clip, type JsonRpcErrorObject, type JsonRpcId, jsonRpcErrorCodes, rpcErrorText } from '../jsonrpc/messages.ts';
import type { Network } from './registry.ts';

/**
 * Every upstream of the network is out of its budget or backing off after its own 429: a single
 * JSON-RPC call over HTTP becomes a 429 `rate_limited` with `Retry-After`; a call of a batch (or of a
 * WebSocket message, or the bundler's endpoint) gets the same words as its -32005 error.
 */
export class UpstreamsRateLimited extends AppError {
  readonly retryAfterS: number;

  constructor(message: string, retryAfterS: number) {
    super('rate_limited', message, { headers: { 'retry-after': String(retryAfterS) } });
    this.retryAfterS = retryAfterS;
  }

  /** The JSON-RPC error of one call refused this way. */
  errorObject(): JsonRpcErrorObject {
    return { code: jsonRpcErrorCodes.limit_exceeded, message: this.message, data: { retry_after_s: this.retryAfterS } };
  }
}

/** The pool's `rate_limited` (every upstream out of budget or backing off), with `Retry-After` in whole seconds (>= 1). */
export function upstreamsRateLimited(error: UpstreamError, network: Network): UpstreamsRateLimited {
  const retryAfterS = Math.max(1, Math.ceil((error.retryAfterMs ?? 1_000) / 1_000));
  const { chain, network: name } = network.config;
  return new UpstreamsRateLimited(
    `every upstream of ${chain}/${name} is out of its request budget; retry after ${retryAfterS} s`,
    retryAfterS,
  );
}

/**
 * The JSON-RPC error text of a call the pool could not send (other than `rate_limited`, see above):
 * `no_capable_upstream` -32601 naming the network and the method (no upstream's `methods` serves it);
 * `circuit_open` -32603 saying every upstream's breaker is open and when one is tried again (`data.retry_after_s`);
 * anything else (`wrong_chain`, `integrity`, transport failures) -32603 naming the reason.
 */
export function upstreamErrorAnswer(error: UpstreamError, network: Network, method: string, id: JsonRpcId | undefined): string {
  return rpcErrorText(id, upstreamErrorObject(error, network, method));
}

/**
 * The JSON-RPC error of a method the service answers itself (Alchemy's enhanced methods, the bundler's)
 * whose chain reads no upstream could serve, `rate_limited` included; undefined for any other failure.
 */
export function upstreamFailureObject(error: unknown, network: Network, method: string): JsonRpcErrorObject | undefined {
  const upstream = upstreamErrorIn(error);
  if (upstream === undefined) return undefined;
  if (upstream.reason === 'rate_limited') return upstreamsRateLimited(upstream, network).errorObject();
  return upstreamErrorObject(upstream, network, method);
}

function upstreamErrorObject(error: UpstreamError, network: Network, method: string): JsonRpcErrorObject {
  if (error.reason === 'no_capable_upstream') {
    const { chain, network: name } = network.config;
    return {
      code: jsonRpcErrorCodes.method_not_found,
      message: `no upstream of ${chain}/${name} serves the method '${clip(method)}'`,
    };
  }
  if (error.reason === 'circuit_open') {
    // Our own words (the network, how many upstreams, when a probe is due): no upstream's text is in them.
    const retryAfterS = Math.max(1, Math.ceil((error.retryAfterMs ?? 1_000) / 1_000));
    return {
      code: jsonRpcErrorCodes.internal_error,
      message: `upstream unavailable: ${error.message}; retry with exponential backoff`,
      data: { retry_after_s: retryAfterS },
    };
  }
  return {
    code: jsonRpcErrorCodes.internal_error,
    message: `upstream unavailable (${error.reason}); retry with exponential backoff`,
  };
}

/** A call's answer when it was refused for want of upstream budget: its -32005 error (other errors are thrown on). */
export function rateLimitedAnswer(id: JsonRpcId | undefined): (error: unknown) => string {
  return (error) => {
    if (!(error instanceof UpstreamsRateLimited)) throw error;
    return rpcErrorText(id, error.errorObject());
  };
}
