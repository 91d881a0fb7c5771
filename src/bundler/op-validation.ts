import { type Hex, type StateOverride, toHex } from 'viem';
import type { Network } from '../chains/registry.ts';
import type { BundlerContext } from './bundler-context.ts';
import type { CodeHashes } from './code-hashes.ts';
import { delegationOverride } from './eip7702-delegation.ts';
import { meetsStake } from './entity-stake.ts';
import type { EntryPoint } from './entry-points.ts';
import { outcomeError } from './outcome-errors.ts';
import { BundlerRpcError, bundlerErrorCodes } from './rpc-errors.ts';
import { settledOf } from './settled.ts';
import { type StakeInfo, simulateValidation, simulationOutcomeOfFrame } from './simulation.ts';
import { mergeStateOverrides, rpcStateOverride } from './state-override.ts';
import { type AnyUserOperation, deploysSender } from './user-operation.ts';
import type { RuleEntities } from './validation-rule-types.ts';
import { checkValidationRules, paymasterContextNeedsStake, traceValidation } from './validation-rules.ts';

type ValidationContext = Pick<BundlerContext, 'clientOf' | 'untraceable'>;

/** An op to validate, in the state `override` gives (the sender's queued ops run before it). */
export interface ValidationTarget {
  network: Network;
  entryPoint: EntryPoint;
  op: AnyUserOperation;
  entities: { factory: string | null; paymaster: string | null };
  override: StateOverride;
}

export type Validation = ReturnType<typeof startValidation>;

/**
 * The op's validation, started together: the EntryPoint's simulation and the ERC-7562 rules (their
 * traces run beside the simulation, whose stakes they then use). The op's call is not checked: one
 * that reverts is bundled, and the sender pays for it, as in the reference bundlers. Each result is
 * settled, so that one not awaited (an op found to be queued) rejects nobody.
 */
export function startValidation(ctx: ValidationContext, target: ValidationTarget) {
  return simulateAndCheckRules(ctx, target, 'latest');
}

/** The simulation and the ERC-7562 rules, their traces run at `block` ('latest', or one block for a re-check). */
function simulateAndCheckRules(ctx: ValidationContext, target: ValidationTarget, block: Hex | 'latest') {
  const { network, entryPoint, op, entities, override } = target;
  const client = ctx.clientOf(network);
  const traces =
    network.config.bundler.safeMode && !ctx.untraceable.has(network)
      ? traceValidation(
          (call, options) => client.request({ method: 'debug_traceCall' as never, params: [call, block, options] as never }),
          entryPoint.version,
          entryPoint.address,
          op,
          rpcStateOverride(mergeStateOverrides(override, delegationOverride(op))),
        )
      : undefined;
  const simulateByCall = () => simulateValidation(client, entryPoint.version, entryPoint.address, op, override);
  // The call tree's top frame is the simulation's own answer: the call runs once, not twice.
  const simulation = traces
    ? traces.tree.then(
        (frame) => simulationOutcomeOfFrame(client, entryPoint.version, entryPoint.address, op, frame),
        simulateByCall,
      )
    : simulateByCall();
  const isStaked = (info: StakeInfo) => meetsStake(network.config.bundler, info);
  const rules: Promise<{ storageOwners: string[]; codeHashes: CodeHashes } | 'untraceable' | 'skipped'> = traces
    ? checkValidationRules(
        traces,
        simulation.then(
          (outcome): RuleEntities => ({
            entryPoint: entryPoint.address,
            entryPointVersion: entryPoint.version,
            sender: op.sender,
            factory: entities.factory ?? undefined,
            paymaster: entities.paymaster ?? undefined,
            deploying: deploysSender(op),
            paymasterContext: outcome.paymasterContext === true && paymasterContextNeedsStake(entryPoint.version),
            staked: {
              sender: isStaked(outcome.stakes.sender),
              factory: isStaked(outcome.stakes.factory),
              paymaster: isStaked(outcome.stakes.paymaster),
            },
          }),
        ),
      )
    : Promise.resolve('skipped' as const);
  return { simulation: settledOf(simulation), rules: settledOf(rules) };
}

/**
 * The validation's verdict, in the order a client should hear it: the simulation's refusal, then a
 * broken ERC-7562 rule. `onNonceRefused` runs before a refusal of the op's nonce
 * is thrown (AA25, or AA20 for an account whose deploying op of a lower nonce may be on its way; the
 * reason given): it may say it as the nonce check does, or ask for the send to be checked again. What the rules found:
 * the contracts whose storage the validation touched (STO-041) and the code it ran (COD-010),
 * undefined when it was not traced.
 */
export async function validationVerdict(
  ctx: ValidationContext,
  target: ValidationTarget,
  validation: Validation,
  onNonceRefused: (reason: 'AA20' | 'AA25') => Promise<void>,
): Promise<{ storageOwners: readonly string[] | undefined; codeHashes: CodeHashes | undefined; senderStaked: boolean }> {
  const simulated = await validation.simulation;
  try {
    if (!simulated.ok) throw simulated.error;
    const refused = outcomeError(simulated.value, Math.floor(Date.now() / 1000));
    if (refused) throw refused;
  } catch (error) {
    const reason = error instanceof BundlerRpcError ? String((error.data as { reason?: unknown } | undefined)?.reason ?? '') : '';
    if (/^AA25/.test(reason)) await onNonceRefused('AA25');
    else if (/^AA20/.test(reason) && !deploysSender(target.op)) await onNonceRefused('AA20');
    throw error;
  }
  let ruled = await validation.rules;
  if (!ruled.ok && ruled.error instanceof BundlerRpcError && ruled.error.code === bundlerErrorCodes.bannedOpcode) {
    // The traces ran side by side at 'latest': a block mined between them shows each a different
    // chain (an account deployed in one, not in the other). A broken rule is confirmed at one block.
    const block = toHex(await ctx.clientOf(target.network).getBlockNumber({ cacheTime: 0 }));
    const pinned = simulateAndCheckRules(ctx, target, block);
    const again = await pinned.simulation;
    if (!again.ok) throw again.error;
    ruled = await pinned.rules;
  }
  if (!ruled.ok) throw ruled.error;
  if (ruled.value === 'untraceable') ctx.untraceable.add(target.network);
  const traced = ruled.value === 'untraceable' || ruled.value === 'skipped' ? undefined : ruled.value;
  const senderStaked = meetsStake(target.network.config.bundler, simulated.value.stakes.sender);
  return { storageOwners: traced?.storageOwners, codeHashes: traced?.codeHashes, senderStaked };
}
