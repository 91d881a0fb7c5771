import type { EnhancedMethods } from '../alchemy/enhanced-methods.ts';
import type { Principal } from '../auth/principal.ts';
import type { Network } from '../chains/registry.ts';
import { isAppError } from '../core/errors.ts';
import { computeUnitsFor } from '../limits/compute-units.ts';
import { costExceedsBudget } from '../limits/decision.ts';
import type { LimitDecision, RateLimiter } from '../limits/limiter.ts';
import type { Metrics } from '../observability/metrics.ts';
import { principalCallRefusal } from '../rpc/call-restrictions.ts';
import { type CheckedCall, type JsonRpcCall, jsonRpcErrorCodes, type ParsedRpcBody, rpcErrorText } from '../rpc/jsonrpc.ts';
import { parseRpcBody } from '../rpc/parse-call.ts';
import { forwardRpcRequest, planRpcRequest } from '../rpc/proxy.ts';

export interface AnswerDeps {
  principal: Principal;
  network: Network;
  limiter: RateLimiter;
  metrics: Metrics;
  /** Alchemy's enhanced methods (src/alchemy); absent: they answer -32601. */
  enhanced?: EnhancedMethods;
  /** Answers the calls the socket itself serves (eth_subscribe, eth_unsubscribe), synchronously. */
  answerLocal(call: JsonRpcCall): string;
}

const localMethods = new Set(['eth_subscribe', 'eth_unsubscribe']);

/**
 * The answer to one client message (a call or a batch), as JSON text. Other methods take the HTTP
 * proxy's path (shape check, scopes, method policy, a rebuilt call upstream); the message is charged as
 * one request with the sum of its calls' compute units, and a message over a limit gets -32005 for each
 * call, not a close (-32600 when it costs more than the per-second budget: it could never pass).
 */
export async function answerMessage(deps: AnswerDeps, text: string): Promise<string> {
  try {
    JSON.parse(text);
  } catch {
    return rpcErrorText(null, { code: jsonRpcErrorCodes.parse_error, message: 'parse error: the message is not valid JSON' });
  }
  let parsed: ParsedRpcBody;
  try {
    parsed = parseRpcBody(text);
  } catch (error) {
    if (!isAppError(error)) throw error;
    return rpcErrorText(null, { code: jsonRpcErrorCodes.invalid_request, message: error.message });
  }
  const given = parsed.batch ? parsed.calls : [parsed.call];
  const calls = deps.principal.restrictions === undefined ? given : given.map((checked) => refuseLocal(deps.principal, checked));
  const isLocal = (checked: CheckedCall) => checked.ok && localMethods.has(checked.call.method);
  // As a batch, so a missing scope is that call's -32010 error rather than a thrown 403.
  const plan = planRpcRequest(deps.principal, deps.network, { batch: true, calls: calls.filter((c) => !isLocal(c)) });
  let computeUnits = plan.computeUnits;
  for (const checked of calls)
    if (checked.ok && isLocal(checked)) computeUnits += computeUnitsFor(checked.call.method, checked.call.params);

  // A message that costs more than the per-second budget can never pass: counted as 0 CU, refused as invalid.
  const overBudget = costExceedsBudget(computeUnits, deps.principal.limits);
  const decision = await deps.limiter.consume(deps.principal.accountId, deps.principal.limits, overBudget ? 0 : computeUnits);
  if (!decision.allowed || overBudget) {
    if (!decision.allowed) deps.metrics.rateLimited.inc({ limit: decision.exceeded ?? 'rps' });
    const error = decision.allowed ? overBudgetError(computeUnits, deps.principal.limits.cups!) : limitError(decision);
    const refused = calls.map((checked) => rpcErrorText(checked.ok ? checked.call.id : checked.id, error));
    return parsed.batch ? `[${refused.join(',')}]` : refused[0]!;
  }

  let next = 0;
  const forwarded = await Promise.all(
    calls.map((checked) => {
      if (isLocal(checked)) return undefined;
      const planned = plan.calls[next++]!;
      if (!planned.ok) return rpcErrorText(planned.id, planned.error);
      return forwardRpcRequest(deps, deps.network, { batch: false, calls: [planned], computeUnits: 0 });
    }),
  );
  // Local calls last, synchronously before the answer goes out: a new subscription's first item
  // can then never reach the client before the subscription id does.
  const answers = calls.map((checked, i) => (checked.ok && isLocal(checked) ? deps.answerLocal(checked.call) : forwarded[i]!));
  if (!parsed.batch) return answers[0]!;
  // Notifications get no answer: none in the batch, and no message at all for a batch of only them.
  const answered = answers.filter((answer) => answer !== '');
  return answered.length === 0 ? '' : `[${answered.join(',')}]`;
}

/**
 * eth_subscribe and eth_unsubscribe against the key's restrictions (`methods`; a logs subscription's
 * addresses under `contracts`): a refused one becomes its -32010 error, as a refused proxied call of
 * the message does. The other calls are checked by `planRpcRequest`.
 */
function refuseLocal(principal: Principal, checked: CheckedCall): CheckedCall {
  if (!checked.ok || !localMethods.has(checked.call.method)) return checked;
  const refusal = principalCallRefusal(principal, checked.call.method, checked.call.params);
  if (refusal === undefined) return checked;
  return { ok: false, id: checked.call.id ?? null, error: { code: jsonRpcErrorCodes.scope_missing, message: refusal } };
}

const limitNames = { rps: 'requests per second', rpd: 'requests per day', cups: 'compute units per second' } as const;

function limitError(decision: LimitDecision) {
  const exceeded = decision.exceeded ?? 'rps';
  const retryAfterS = decision.retryAfterS ?? 1;
  const message = `rate limit exceeded: ${limitNames[exceeded]}; retry after ${retryAfterS} s`;
  return { code: jsonRpcErrorCodes.limit_exceeded, message, data: { limit: exceeded, retry_after_s: retryAfterS } };
}

function overBudgetError(computeUnits: number, budget: number) {
  return {
    code: jsonRpcErrorCodes.invalid_request,
    message: `Invalid request: this message costs ${computeUnits} compute units, more than the ${budget} the plan allows per second, so it can never pass; split it into smaller messages`,
  };
}
