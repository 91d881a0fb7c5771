import type { EnhancedMethods } from '../alchemy/enhanced-methods.ts';
import { isDataMethod } from '../alchemy/method-names.ts';
import type { Principal } from '../auth/principal.ts';
import type { Network } from '../chains/registry.ts';
import { isAppError } from '../core/errors.ts';
import {
  type CheckedCall,
  type JsonRpcCall,
  type JsonRpcErrorObject,
  jsonRpcErrorCodes,
  type ParsedRpcBody,
  rpcErrorText,
} from '../jsonrpc/messages.ts';
import { type ChargeDecision, consumeBudgets, rateLimitMessage, unpayableCost } from '../limits/charge-budgets.ts';
import { computeUnitsFor } from '../limits/compute-units.ts';
import type { DataQuerySlots } from '../limits/data-query-slots.ts';
import type { RateLimiter } from '../limits/limiter.ts';
import type { Metrics } from '../observability/metrics.ts';
import { principalCallRefusal } from '../rpc/call-restrictions.ts';
import { oneAtATime, takeDataSlot } from '../rpc/data-calls.ts';
import { parseRpcBody, withoutByteOrderMark } from '../rpc/parse-call.ts';
import { forwardRpcRequest, planRpcRequest, type RpcPlan } from '../rpc/proxy.ts';
import { recordRpcUsage } from '../rpc/record-usage.ts';
import type { UsageRecorder } from '../usage/recorder.ts';
import type { StatusClass } from '../usage/status-class.ts';

export interface AnswerDeps {
  principal: Principal;
  network: Network;
  limiter: RateLimiter;
  metrics: Metrics;
  /** Alchemy's enhanced methods (src/alchemy); absent: they answer -32601. */
  enhanced?: EnhancedMethods;
  /** The per-account cap on data queries running at once; absent: no cap. */
  dataQueries?: DataQuerySlots;
  /** Counts each call for `GET /v1/usage`, as the HTTP endpoint does; absent: not counted. */
  usage?: UsageRecorder;
  /** Answers the calls the socket itself serves (eth_subscribe, eth_unsubscribe), synchronously. */
  answerLocal(call: JsonRpcCall): string;
  /** Awaited before `answerLocal` answers the message's local calls (a new feed's first subscription waits for it to follow the chain). */
  beforeLocal?(calls: readonly JsonRpcCall[]): Promise<void>;
}

const localMethods = new Set(['eth_subscribe', 'eth_unsubscribe']);

/**
 * The answer to one client message (a call or a batch), as JSON text. Other methods take the HTTP
 * proxy's path (shape check, scopes, method policy, a rebuilt call upstream); the message is charged as
 * one request with the sum of its calls' compute units, and a message over a limit gets -32005 for each
 * call, not a close (-32600 when it costs more than the per-second budget: it could never pass).
 */
export async function answerMessage(deps: AnswerDeps, message: string): Promise<string> {
  const text = withoutByteOrderMark(message);
  try {
    JSON.parse(text);
  } catch {
    recordUnparsed(deps);
    return rpcErrorText(null, { code: jsonRpcErrorCodes.parse_error, message: 'parse error: the message is not valid JSON' });
  }
  let parsed: ParsedRpcBody;
  try {
    parsed = parseRpcBody(text);
  } catch (error) {
    if (!isAppError(error)) throw error;
    recordUnparsed(deps);
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
  const record = messageUsage(deps, given, calls, plan, computeUnits, isLocal);
  const refuseAll = (error: JsonRpcErrorObject) => {
    const refused = calls.map((checked) => rpcErrorText(checked.ok ? checked.call.id : checked.id, error));
    return parsed.batch ? `[${refused.join(',')}]` : refused[0]!;
  };

  // As on HTTP, a message the per-account cap refuses is one request of 0 CU.
  let release: (() => void) | undefined;
  try {
    release = await takeDataSlot(deps.dataQueries, deps.principal, plan.calls);
  } catch (error) {
    if (!isAppError(error)) throw error;
    await consumeBudgets(deps.limiter, deps.principal, 0);
    record('429', false);
    return refuseAll({
      code: jsonRpcErrorCodes.limit_exceeded,
      message: error.message,
      data: { limit: 'data_queries_per_account' },
    });
  }
  try {
    // A message that costs more than the per-second budget can never pass: counted as 0 CU, refused as invalid.
    const unpayable = unpayableCost(computeUnits, deps.principal);
    const decision = await consumeBudgets(deps.limiter, deps.principal, unpayable ? 0 : computeUnits);
    if (!decision.allowed) {
      deps.metrics.rateLimited.inc({ limit: decision.exceeded ?? 'rps' });
      record('429', false);
      return refuseAll(limitError(decision));
    }
    if (unpayable) {
      record('4xx', false);
      return refuseAll(overBudgetError(computeUnits, unpayable));
    }
    let next = 0;
    const serial = oneAtATime();
    const forwarded = await Promise.all(
      calls.map((checked) => {
        if (isLocal(checked)) return undefined;
        const planned = plan.calls[next++]!;
        // A refused notification gets no answer, as on HTTP (JSON-RPC 2.0, section 4.1).
        if (!planned.ok) return planned.notification ? '' : rpcErrorText(planned.id, planned.error);
        const forward = () => forwardRpcRequest(deps, deps.network, { batch: false, calls: [planned], computeUnits: 0 });
        return isDataMethod(planned.call.method) ? serial(forward) : forward();
      }),
    ).catch((error: unknown) => {
      record('5xx', true);
      throw error;
    });
    release?.();
    release = undefined;
    record('2xx', true);
    const local = calls.flatMap((checked) => (checked.ok && isLocal(checked) ? [checked.call] : []));
    if (local.length > 0 && deps.beforeLocal) await deps.beforeLocal(local);
    // Local calls last, synchronously before the answer goes out: a new subscription's first item
    // can then never reach the client before the subscription id does.
    const answers = calls.map((checked, i) => (checked.ok && isLocal(checked) ? deps.answerLocal(checked.call) : forwarded[i]!));
    if (!parsed.batch) return answers[0]!;
    // Notifications get no answer: none in the batch, and no message at all for a batch of only them.
    const answered = answers.filter((answer) => answer !== '');
    return answered.length === 0 ? '' : `[${answered.join(',')}]`;
  } finally {
    release?.();
  }
}

/** A message that is not JSON-RPC: one request of 0 CU, as a body that is not JSON is on HTTP. */
function recordUnparsed(deps: AnswerDeps): void {
  if (deps.usage !== undefined) recordRpcUsage(deps.usage, deps.principal, deps.network, undefined, undefined, '4xx', false);
}

/**
 * Counts each call of a message as one request with its method, as the HTTP endpoint counts a batch:
 * the calls share the message's outcome, and a charged call counts what it cost (a refused one, 0).
 */
function messageUsage(
  deps: AnswerDeps,
  given: readonly CheckedCall[],
  calls: readonly CheckedCall[],
  plan: RpcPlan,
  computeUnits: number,
  isLocal: (checked: CheckedCall) => boolean,
): (statusClass: StatusClass, charged: boolean) => void {
  const { usage } = deps;
  if (usage === undefined) return () => {};
  let next = 0;
  // Aligned with the message's calls: an answered eth_subscribe stands for itself; the rest went through the plan.
  const verdicts = calls.map((checked) => (isLocal(checked) ? checked : plan.calls[next++]!));
  const whole: RpcPlan = { batch: true, calls: verdicts, computeUnits };
  return (statusClass, charged) =>
    recordRpcUsage(usage, deps.principal, deps.network, { batch: true, calls: [...given] }, whole, statusClass, charged);
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

function limitError(decision: ChargeDecision) {
  const exceeded = decision.exceeded ?? 'rps';
  const retryAfterS = decision.retryAfterS ?? 1;
  const data = { limit: exceeded, retry_after_s: retryAfterS, ...(decision.byKey ? { budget: 'key' } : {}) };
  return { code: jsonRpcErrorCodes.limit_exceeded, message: rateLimitMessage(decision), data };
}

function overBudgetError(computeUnits: number, budget: { cups: number; byKey: boolean }) {
  const whose = budget.byKey ? 'this key' : 'the plan';
  return {
    code: jsonRpcErrorCodes.invalid_request,
    message: `Invalid request: this message costs ${computeUnits} compute units, more than the ${budget.cups} ${whose} allows per second, so it can never pass; split it into smaller messages`,
  };
}
