import type { AccountCall } from './call-targets.ts';
import type { ExecutionCalls, ReachedCall } from './reached-calls.ts';
import { formatUsd, parseUsd } from './usd.ts';

/** A policy's rules as the check reads them: addresses lower-case, methods as 4-byte selectors, times in Unix seconds. */
export interface SponsorRules {
  readonly maxGasUsd?: string;
  readonly maxGasUsdPerOp?: string;
  readonly maxGasUsdPerSender?: string;
  readonly maxOps?: number;
  readonly maxOpsPerSender?: number;
  readonly maxPerUserPerDay?: number;
  readonly allowedContracts?: readonly string[];
  readonly allowedMethods?: readonly string[];
  readonly allowedSenders?: readonly string[];
  readonly blockedSenders?: readonly string[];
  readonly allowedFactories?: readonly string[];
  readonly startTime?: number;
  readonly endTime?: number;
  readonly rateLimit?: { readonly ops: number; readonly perSeconds: number };
}

/** What the policy has sponsored so far (reservations not released, settled ones at their actual cost). */
export interface PolicyUsage {
  readonly usdPico: bigint;
  readonly ops: number;
  readonly senderUsdPico: bigint;
  readonly senderOps: number;
  readonly senderOpsToday: number;
  /** Sponsorships made in the rate limit's window. */
  readonly opsInWindow: number;
}

/** What the rules that need no usage look at in an op: its time, sender, factory and callData. */
export interface AdmissionFacts {
  readonly nowS: number;
  readonly sender: string;
  /** The factory that deploys the sender in this op, lower-case; null when it deploys nothing. */
  readonly factory: string | null;
  /** The calls its callData makes, or undefined when the account's callData is not readable. */
  readonly calls: readonly AccountCall[] | undefined;
}

export interface SponsorFacts extends AdmissionFacts {
  /** The op's most possible cost. */
  readonly costUsdPico: bigint;
  /** What its execution reached (traced); undefined when nothing was traced (a policy without call rules). */
  readonly execution: ExecutionCalls | undefined;
  readonly usage: PolicyUsage;
}

/**
 * The first rule the op breaks, as the message a refusal carries (the rule's name and the figures),
 * or undefined when the policy sponsors it. Pure.
 * @example "max_gas_usd_per_sender exceeded: 4.10 of 5.00 used, this op up to 1.20"
 */
export function policyViolation(rules: SponsorRules, facts: SponsorFacts): string | undefined {
  return admissionViolation(rules, facts) ?? callRulesViolation(rules, facts.execution) ?? capViolation(rules, facts);
}

/** Whether the policy names contracts or methods: the op's execution is then traced. */
export const hasCallRules = (rules: SponsorRules): boolean => Boolean(rules.allowedContracts || rules.allowedMethods);

/**
 * The rules an op breaks whatever it costs and whatever the policy sponsored before: the time window,
 * the sender, the factory, and the calls its callData names (a quick check before the trace, which
 * decides when the callData is not an execute the service can read). Pure.
 */
export function admissionViolation(rules: SponsorRules, facts: AdmissionFacts): string | undefined {
  const sender = facts.sender.toLowerCase();
  if (rules.startTime !== undefined && facts.nowS < rules.startTime)
    return `start_time not reached: the policy sponsors from ${new Date(rules.startTime * 1000).toISOString()}`;
  if (rules.endTime !== undefined && facts.nowS >= rules.endTime)
    return `end_time passed: the policy sponsored until ${new Date(rules.endTime * 1000).toISOString()}`;
  if (rules.blockedSenders?.includes(sender)) return `blocked_senders: ${sender} is blocked by this policy`;
  if (rules.allowedSenders && !rules.allowedSenders.includes(sender))
    return `allowed_senders: ${sender} is not one of the ${rules.allowedSenders.length} senders this policy sponsors`;
  if (rules.allowedFactories && facts.factory !== null && !rules.allowedFactories.includes(facts.factory))
    return `allowed_factories: the op deploys its sender with the factory ${facts.factory}, which this policy does not sponsor`;
  if (!hasCallRules(rules) || !facts.calls) return undefined;
  const rule = rules.allowedContracts ? 'allowed_contracts' : 'allowed_methods';
  if (facts.calls.length === 0) return `${rule}: the op calls nothing, so none of what this policy sponsors`;
  for (const call of facts.calls) {
    if (rules.allowedContracts && !rules.allowedContracts.includes(call.to))
      return `allowed_contracts: the op calls ${call.to}, which this policy does not sponsor`;
    if (rules.allowedMethods && (call.selector === null || !rules.allowedMethods.includes(call.selector)))
      return `allowed_methods: the op calls ${call.selector ?? 'no method (a plain transfer)'} on ${call.to}, which this policy does not sponsor`;
  }
  return undefined;
}

/**
 * The call rules against every call the op's execution made (reached-calls.ts), when the policy has
 * any: where the node could not trace it, they cannot be enforced and the op is refused. Pure.
 */
export function callRulesViolation(rules: SponsorRules, execution: ExecutionCalls | undefined): string | undefined {
  if (!hasCallRules(rules)) return undefined;
  const rule = rules.allowedContracts ? 'allowed_contracts' : 'allowed_methods';
  if (execution === undefined) return `${rule}: the op's execution was not traced, so this policy cannot sponsor it`;
  if (execution.kind === 'untraceable')
    return `${rule} cannot be enforced: ${execution.reason}; ops under a policy that names contracts or methods are refused there`;
  if (execution.calls.length === 0) return `${rule}: the op's execution calls nothing, so none of what this policy sponsors`;
  for (const call of execution.calls) {
    const what = reachedCallText(call);
    if (rules.allowedContracts && !rules.allowedContracts.includes(call.to))
      return `allowed_contracts: the op's execution ${what}, which this policy does not sponsor`;
    if (rules.allowedMethods && (call.selector === null || !rules.allowedMethods.includes(call.selector)))
      return `allowed_methods: the op's execution ${what}, which is no method this policy sponsors`;
  }
  return undefined;
}

function reachedCallText(call: ReachedCall): string {
  if (call.creates) return `creates the contract ${call.to} (from ${call.from})`;
  const method = call.selector === null ? 'no method (a plain transfer)' : call.selector;
  return `calls ${method} on ${call.to} (from ${call.from})`;
}

/** The caps on cost, count and rate, against what the policy sponsored so far. Pure. */
function capViolation(rules: SponsorRules, facts: SponsorFacts): string | undefined {
  const sender = facts.sender.toLowerCase();
  const usd = formatUsd;
  if (rules.maxGasUsdPerOp !== undefined && facts.costUsdPico > parseUsd(rules.maxGasUsdPerOp))
    return `max_gas_usd_per_op exceeded: this op up to ${usd(facts.costUsdPico)}, the limit ${usd(parseUsd(rules.maxGasUsdPerOp))}`;
  if (rules.maxGasUsd !== undefined && facts.usage.usdPico + facts.costUsdPico > parseUsd(rules.maxGasUsd))
    return `max_gas_usd exceeded: ${usd(facts.usage.usdPico)} of ${usd(parseUsd(rules.maxGasUsd))} used, this op up to ${usd(facts.costUsdPico)}`;
  if (
    rules.maxGasUsdPerSender !== undefined &&
    facts.usage.senderUsdPico + facts.costUsdPico > parseUsd(rules.maxGasUsdPerSender)
  )
    return `max_gas_usd_per_sender exceeded: ${usd(facts.usage.senderUsdPico)} of ${usd(parseUsd(rules.maxGasUsdPerSender))} used, this op up to ${usd(facts.costUsdPico)}`;
  if (rules.maxOps !== undefined && facts.usage.ops >= rules.maxOps)
    return `max_ops reached: ${facts.usage.ops} of ${rules.maxOps} operations sponsored`;
  if (rules.maxOpsPerSender !== undefined && facts.usage.senderOps >= rules.maxOpsPerSender)
    return `max_ops_per_sender reached: ${facts.usage.senderOps} of ${rules.maxOpsPerSender} operations sponsored for ${sender}`;
  if (rules.maxPerUserPerDay !== undefined && facts.usage.senderOpsToday >= rules.maxPerUserPerDay)
    return `max_per_user_per_day reached: ${facts.usage.senderOpsToday} of ${rules.maxPerUserPerDay} operations sponsored for ${sender} today (UTC)`;
  if (rules.rateLimit && facts.usage.opsInWindow >= rules.rateLimit.ops)
    return `rate_limit reached: ${facts.usage.opsInWindow} of ${rules.rateLimit.ops} operations in the last ${rules.rateLimit.perSeconds} s`;
  return undefined;
}
