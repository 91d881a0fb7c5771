import type { Address, Hex } from 'viem';
import { createBytecodeScreenCache } from './bytecode-screen.ts';
import { type CodeHashes, visitedCodeHashes } from './code-hashes.ts';
import { simulationsCodeOf } from './entry-points.ts';
import { BundlerRpcError, bundlerErrorCodes } from './rpc-errors.ts';
import { simulationCallData } from './simulation.ts';
import { type AnyUserOperation, type EntryPointVersion, entitiesOf } from './user-operation.ts';
import { type CallFrame, checkCallTree, codeInTrace, type Prestate } from './validation-call-tree.ts';
import {
  bannedOpcodes,
  callOpcodeNames,
  type OpcodeStep,
  opcodeStepOptions,
  opcodeStepsAreClean,
} from './validation-opcode-steps.ts';
import { createPassMemory, passKeyOf } from './validation-pass-memory.ts';
import type { RuleEntities, RuleViolation } from './validation-rule-types.ts';
import { codeReadOutsideEntryPoint } from './validation-step-frames.ts';
import { checkStepTrace, type StepTrace, stepTracerSource } from './validation-step-trace.ts';

export interface StructLog {
  readonly op: string;
  readonly depth: number;
  readonly stack?: readonly string[];
}

/**
 * The struct-logger fallback, for upstreams without JavaScript tracers: opcodes only (no storage rules).
 * Finds the first banned opcode in a validation trace. Depth 1 is the EntryPoint itself; what runs
 * deeper is an entity's validation: the account's validateUserOp, the factory (through the
 * EntryPoint's SenderCreator), or the paymaster's validatePaymasterUserOp. GAS is allowed right
 * before a call (the gas to forward), CREATE2 once, for the factory deploying the sender.
 * Pure: the trace in, the violation out.
 */
export function findRuleViolation(
  logs: readonly StructLog[],
  entities: { sender: Address; paymaster?: Address },
): RuleViolation | undefined {
  const sender = entities.sender.toLowerCase();
  const paymaster = entities.paymaster?.toLowerCase();
  /** The address called at each depth, read from the caller's stack at the call. */
  const frames: string[] = [];
  let create2 = 0;
  for (let i = 0; i < logs.length; i++) {
    const log = logs[i]!;
    if (callOpcodeNames.has(log.op) && log.stack && log.stack.length >= 2) {
      const target = `0x${log.stack[log.stack.length - 2]!.replace(/^0x/, '').padStart(40, '0').slice(-40)}`;
      frames[log.depth + 1] = target.toLowerCase();
    }
    if (log.depth < 2) continue;
    const top = frames[2];
    const entity: RuleViolation['entity'] =
      top === sender
        ? 'account'
        : paymaster && top === paymaster
          ? 'paymaster'
          : log.depth >= 3 || top !== undefined
            ? 'factory'
            : 'unknown';
    if (log.op === 'GAS') {
      const next = logs[i + 1];
      if (next && callOpcodeNames.has(next.op)) continue;
      return { entity, opcode: 'GAS', rule: 'OP-012' };
    }
    if (log.op === 'CREATE2') {
      if (++create2 > 1 || entity !== 'factory') return { entity, opcode: 'CREATE2', rule: 'OP-031' };
      continue;
    }
    if (bannedOpcodes.has(log.op)) return { entity, opcode: log.op, rule: 'OP-011' };
  }
  return undefined;
}

export type TraceCall = (call: { to: Address; data: Hex }, options: Record<string, unknown>) => Promise<unknown>;

const unsupported = (error: unknown) =>
  /not (found|supported|available)|does not exist|unknown method|unsupported|not implemented/i.test(
    (error as Error).message ?? '',
  );
const screen = createBytecodeScreenCache();
const passMemory = createPassMemory();

/** The op's validation call (the simulation the EntryPoint runs) being traced by the two built-in tracers. */
export interface ValidationTraces {
  readonly trace: TraceCall;
  readonly call: { to: Address; data: Hex };
  readonly overrides: Record<string, Record<string, unknown>>;
  /** The call tree; its top frame's output is the simulation's own result (simulationOutcomeOfFrame). */
  readonly tree: Promise<CallFrame>;
  readonly prestate: Promise<Prestate>;
  /** Addresses whose traced code is not theirs on chain (code overrides): left out of the code hashes. */
  readonly overridden: readonly string[];
  /** The key of which pass settled this validation (validation-pass-memory.ts): the factory's for an op that deploys its sender, else the sender's. */
  readonly passKey: string;
  /** An op that deploys its sender: the sender's key, for its next ops (its own validation ran here too). */
  readonly accountPassKey?: string;
  /** The opcode pass's steps (undefined where the upstream cannot list them), started with the two tracers when it settled the last validation under the same key. */
  readonly opcodeSteps?: Promise<readonly OpcodeStep[] | undefined>;
  /** The step tracer's result, started with the two tracers when it settled the last validation under the same key. */
  readonly stepTrace?: Promise<unknown>;
}

/** Starts tracing the op's validation call with `callTracer` and `prestateTracer`, side by side. */
export function traceValidation(
  trace: TraceCall,
  version: EntryPointVersion,
  entryPoint: Address,
  op: AnyUserOperation,
  stateOverrides: Record<string, Record<string, unknown>> = {},
): ValidationTraces {
  const overrides =
    version !== '0.6'
      ? { ...stateOverrides, [entryPoint]: { ...stateOverrides[entryPoint], code: simulationsCodeOf(version) } }
      : stateOverrides;
  const call = { to: entryPoint, data: simulationCallData(version, op) };
  const tree = trace(call, { tracer: 'callTracer', stateOverrides: overrides }) as Promise<CallFrame>;
  const prestate = trace(call, { tracer: 'prestateTracer', stateOverrides: overrides }) as Promise<Prestate>;
  // Awaited by checkValidationRules, unless the op is refused before (then nobody needs them).
  tree.catch(() => undefined);
  prestate.catch(() => undefined);
  const { factory, paymaster } = entitiesOf(op);
  const passKey = passKeyOf(entryPoint, factory ?? op.sender);
  const last = passMemory.recall(passKey);
  const opcodeSteps = last === 'opcodes' ? listOpcodeSteps(trace, call, overrides) : undefined;
  const addresses = { entryPoint, sender: op.sender, factory: factory ?? undefined, paymaster: paymaster ?? undefined };
  const stepTrace =
    last === 'steps' ? trace(call, { tracer: stepTracerSource(addresses), stateOverrides: overrides }) : undefined;
  stepTrace?.catch(() => undefined);
  return {
    trace,
    call,
    overrides,
    tree,
    prestate,
    overridden: Object.keys(overrides),
    passKey,
    ...(factory ? { accountPassKey: passKeyOf(entryPoint, op.sender) } : {}),
    opcodeSteps,
    stepTrace,
  };
}

/**
 * Whether the EntryPoint's ERC-7562 asks a stake of a paymaster that returns a postOp context
 * (EREP-050): v0.6 and v0.8 do; the rules of v0.7, whose EntryPoint calls postOp once, dropped it
 * (each version's bundler spec tests check it so).
 */
export function paymasterContextNeedsStake(version: EntryPointVersion): boolean {
  return version !== '0.7';
}

/**
 * Checks the op's validation (the simulation the EntryPoint runs) against ERC-7562's rules, in up to
 * two passes: the call tree and the touched state (two built-in tracers, a millisecond or two), then,
 * only when those cannot settle it (code that could reach a banned opcode, storage outside the
 * sender's and staked entities'), a step trace by a small JavaScript tracer (or, where the upstream
 * has none, the struct logger, opcodes only). Throws the broken rule as ERC-7769's -32502 error.
 * Returns 'untraceable' when the upstream offers no debug_traceCall (the rules are then not checked),
 * else the contracts (other than the sender and the EntryPoint) whose storage validation touched, for
 * the mempool-wide rule STO-041, and the code hashes of what ran (COD-010, checked again after each
 * block). `entities` may still be on its way (the stakes come from the
 * simulation, which runs beside the traces): a failure there is thrown first.
 */
export async function checkValidationRules(
  traces: ValidationTraces,
  entitiesOrPending: RuleEntities | Promise<RuleEntities>,
): Promise<{ storageOwners: string[]; codeHashes: CodeHashes } | 'untraceable'> {
  const { trace, call, overrides } = traces;
  let quick: ReturnType<typeof checkCallTree> | undefined;
  let storageOwners: string[] = [];
  let codeHashes: CodeHashes = {};
  const [traced, known] = await Promise.allSettled([Promise.all([traces.tree, traces.prestate]), entitiesOrPending]);
  if (known.status === 'rejected') throw known.reason;
  const entities = known.value;
  if (entities.paymaster && entities.paymasterContext && !entities.staked.paymaster)
    throw ruleError({
      entity: 'paymaster',
      opcode: 'RETURN',
      rule: 'EREP-050',
      detail: 'returns a context for its postOp, which only a staked paymaster may',
    });
  try {
    if (traced.status === 'rejected') throw traced.reason;
    const [tree, prestate] = traced.value;
    quick = checkCallTree(tree, prestate, entities, screen);
    storageOwners = storageOwnersOf(prestate, entities);
    codeHashes = visitedCodeHashes(tree, prestate, traces.overridden);
  } catch (error) {
    if (!unsupported(error)) throw error;
  }
  if (traces.accountPassKey && quick?.kind === 'trace' && quick.opcodesOnly)
    passMemory.remember(traces.accountPassKey, 'opcodes');
  if (quick?.kind === 'ok') {
    passMemory.remember(traces.passKey, undefined);
    return { storageOwners, codeHashes };
  }
  if (quick?.kind === 'violation') throw ruleError(quick.violation);
  if (quick?.kind === 'trace' && quick.opcodesOnly && traced.status === 'fulfilled' && traces.stepTrace === undefined) {
    const steps = await (traces.opcodeSteps ?? listOpcodeSteps(trace, call, overrides));
    if (steps !== undefined && opcodeStepsAreClean(steps)) {
      const [tree, prestate] = traced.value;
      const codeOf = codeInTrace(tree, prestate);
      const hasCode = (address: string) => (codeOf.get(address.toLowerCase()) ?? '0x') !== '0x';
      if (!quick.codeReads || !codeReadOutsideEntryPoint(steps, tree, hasCode, entities.entryPoint)) {
        passMemory.remember(traces.passKey, 'opcodes');
        return { storageOwners, codeHashes };
      }
    }
  }
  passMemory.remember(traces.passKey, 'steps');

  let violation: RuleViolation | undefined;
  try {
    const steps = (await (traces.stepTrace ??
      trace(call, { tracer: stepTracerSource(entities), stateOverrides: overrides }))) as StepTrace;
    violation = checkStepTrace(steps, entities);
  } catch (error) {
    if (!unsupported(error)) throw error;
    let result: { structLogs?: StructLog[] };
    try {
      result = (await trace(call, {
        disableMemory: true,
        disableStorage: true,
        enableReturnData: false,
        stateOverrides: overrides,
      })) as { structLogs?: StructLog[] };
    } catch (structError) {
      if (unsupported(structError)) return 'untraceable';
      throw structError;
    }
    violation = findRuleViolation(result.structLogs ?? [], {
      sender: entities.sender as Address,
      paymaster: entities.paymaster as Address | undefined,
    });
  }
  if (violation) throw ruleError(violation);
  return { storageOwners, codeHashes };
}

/**
 * The middle pass: the opcode-only step list, when the first pass left only opcodes undecided (code
 * that could reach GAS other than before a call, as most accounts' `execute` can, or read other
 * accounts' code). Undefined sends the op on to the step tracer: an upstream that cannot list the steps.
 */
async function listOpcodeSteps(
  trace: TraceCall,
  call: ValidationTraces['call'],
  overrides: ValidationTraces['overrides'],
): Promise<readonly OpcodeStep[] | undefined> {
  try {
    const result = (await trace(call, { ...opcodeStepOptions, stateOverrides: overrides })) as { structLogs?: OpcodeStep[] };
    return Array.isArray(result?.structLogs) ? result.structLogs : undefined;
  } catch {
    return undefined;
  }
}

function storageOwnersOf(prestate: Prestate, entities: RuleEntities): string[] {
  const skip = new Set([entities.sender.toLowerCase(), entities.entryPoint.toLowerCase()]);
  return Object.entries(prestate)
    .filter(([address, account]) => !skip.has(address.toLowerCase()) && Object.keys(account.storage ?? {}).length > 0)
    .map(([address]) => address.toLowerCase());
}

/** Rules about an opcode itself (banned, GAS not before a call, unassigned, BALANCE while unstaked), not what it touched. */
const opcodeRules = new Set(['OP-011', 'OP-012', 'OP-013', 'OP-080']);

/**
 * The refusal in words: the rule, the entity, and the opcode or what it did. A banned opcode reads
 * "account uses banned opcode: TIMESTAMP", as the reference bundler words it (the ERC-4337 bundler
 * spec tests look for those words; 0x44 is named by both its names, DIFFICULTY/PREVRANDAO, as ERC-7562 lists it).
 */
function ruleError(violation: RuleViolation): BundlerRpcError {
  const { entity, opcode, detail } = violation;
  const bannedOpcode = opcodeRules.has(violation.rule ?? 'OP-011') || (violation.rule === 'OP-031' && entity !== 'factory');
  const what = !bannedOpcode
    ? `the ${entity}'s validation ${detail} (${opcode})`
    : `${entity} uses banned opcode: ${opcode === 'PREVRANDAO' ? 'DIFFICULTY/PREVRANDAO' : opcode} (${detail ? `the ${entity}'s validation ${detail}` : 'its result can change between simulation and bundling'})`;
  return new BundlerRpcError(bundlerErrorCodes.bannedOpcode, `ERC-7562${violation.rule ? ` ${violation.rule}` : ''}: ${what}`, {
    entity: violation.entity,
    opcode: violation.opcode,
    ...(violation.rule ? { rule: violation.rule } : {}),
  });
}
