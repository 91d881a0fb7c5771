import type { BytecodeScreen } from './bytecode-screen.ts';
import { createAllowed } from './validation-create-rules.ts';
import type { RuleEntities, RuleViolation, ValidationEntity } from './validation-rule-types.ts';

/** A frame of a `callTracer` trace (geth's format, which anvil, reth and erigon share). */
export interface CallFrame {
  readonly type: string;
  readonly from: string;
  readonly to?: string;
  readonly value?: string;
  readonly input?: string;
  readonly output?: string;
  readonly error?: string;
  readonly gasUsed?: string;
  readonly calls?: readonly CallFrame[];
}

/** A `prestateTracer` result: every account the call touched, with its code and the slots it accessed. */
export type Prestate = Readonly<Record<string, { readonly code?: string; readonly storage?: Readonly<Record<string, string>> }>>;

/** The verdict of the quick check: a broken rule, fine, or a step-by-step trace is needed to tell. */
export type QuickVerdict =
  | { readonly kind: 'violation'; readonly violation: RuleViolation }
  | { readonly kind: 'ok' }
  | {
      readonly kind: 'trace';
      readonly why: string;
      /** Only which opcodes ran is undecided (not storage): the opcode-only step list can clear it. */
      readonly opcodesOnly: boolean;
      /**
       * An EXTCODE* in code that ran may have targeted an address without code (OP-041) or the
       * EntryPoint (OP-054): the opcode list clears the op only if none ran outside the EntryPoint's
       * own code (validation-step-frames.ts).
       */
      readonly codeReads: boolean;
    };

/** EntryPoint.depositTo(address): ERC-7562 OP-052 lets the sender or factory call it. */
const depositToSelector = '0xb760faf9';
/** Precompiles validation may call (OP-062): ecrecover .. blake2f, and the P-256 verifier of RIP-7212/EIP-7951. */
const allowedPrecompiles = new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 0x100]);
/** EIP-7702's delegation designator: 0xef0100 and the delegate's address. */
const delegationPrefix = '0xef0100';
/**
 * A frame halted by an unassigned opcode (ERC-7562 OP-013): anvil says "invalid opcode", geth "invalid
 * opcode: opcode 0xc0 not defined"; the designated INVALID (0xfe) says "invalid opcode: INVALID".
 */
const ranUnassignedOpcode = (error: string) => /invalid opcode/i.test(error) && !/INVALID$/.test(error);
/** 0x01 up to 0x1ff: the precompiles' range (none runs EVM code). */
export const isPrecompileAddress = (address: string) => BigInt(address) > 0n && BigInt(address) <= 0x1ffn;

/** What a walk of the call tree knows, and what it could not decide so far. */
interface TreeWalk {
  readonly entryPoint: string;
  readonly sender: string;
  readonly factory: string | undefined;
  readonly paymaster: string | undefined;
  /** The code at each address: the prestate's, and what the trace itself created. */
  readonly codeOf: ReadonlyMap<string, string>;
  readonly staked: RuleEntities['staked'];
  readonly deploying: boolean;
  readonly screen: (code: string) => BytecodeScreen;
  /** An EXTCODE* whose target only the step tracer sees (OP-041, OP-054): the opcode pass clears it only if none ran. */
  targetsUndecided?: boolean;
  /** Code that ran may check an address's code size (EXTCODESIZE ISZERO): OP-041 if one touched has none. */
  checksCodeSize?: boolean;
  /** CREATE2 frames seen so far (the factory may create the sender, once). */
  creates: number;
  /** The first thing the quick check could not decide: the step-by-step trace must. */
  undecided?: string;
  /** Storage outside the sender's and staked entities' was touched: only the step tracer can judge it. */
  storageUndecided?: boolean;
}

/**
 * Checks an op's validation from its call tree and the state it touched (two tracer results that
 * cost a millisecond or two each), without the step-by-step trace: calls, values, precompiles,
 * contract creation, the EntryPoint's allowed entry points, storage owned by the sender or staked
 * entities, and a static screen of every code that ran. Whatever it cannot decide (storage of other
 * contracts, code that could reach a banned opcode) asks for the full trace.
 * Pure: the traces and a screen function in, the verdict out.
 */
export function checkCallTree(
  root: CallFrame,
  prestate: Prestate,
  entities: RuleEntities,
  screen: (code: string) => BytecodeScreen,
): QuickVerdict {
  const walk: TreeWalk = {
    entryPoint: entities.entryPoint.toLowerCase(),
    sender: entities.sender.toLowerCase(),
    factory: entities.factory?.toLowerCase(),
    paymaster: entities.paymaster?.toLowerCase(),
    codeOf: codeInTrace(root, prestate),
    staked: entities.staked,
    deploying: entities.deploying,
    screen,
    creates: 0,
  };
  const violation = checkEntryPointFrame(walk, root);
  if (violation) return { kind: 'violation', violation };
  checkStorage(walk, prestate);
  if (walk.checksCodeSize) {
    const codeless = Object.keys(prestate).find((address) => !walk.codeOf.has(address.toLowerCase()) && BigInt(address) > 0x1ffn);
    if (codeless) {
      walk.undecided ??= `validation may check the code size of ${codeless}, which has no code`;
      walk.targetsUndecided = true;
    }
  }
  return walk.undecided
    ? { kind: 'trace', why: walk.undecided, opcodesOnly: !walk.storageUndecided, codeReads: walk.targetsUndecided === true }
    : { kind: 'ok' };
}

/** The code at each address the trace touched; created code too: the sender's exists only inside this trace (the CREATE2 frame's output). */
export function codeInTrace(root: CallFrame, prestate: Prestate): Map<string, string> {
  const codeOf = new Map<string, string>();
  for (const [address, account] of Object.entries(prestate)) if (account.code) codeOf.set(address.toLowerCase(), account.code);
  const collectCreated = (frame: CallFrame) => {
    if ((frame.type === 'CREATE2' || frame.type === 'CREATE') && frame.to && frame.output && !frame.error)
      codeOf.set(frame.to.toLowerCase(), frame.output);
    for (const child of frame.calls ?? []) collectCreated(child);
  };
  collectCreated(root);
  return codeOf;
}

function isStaked(walk: TreeWalk, entity: ValidationEntity): boolean {
  return entity === 'account'
    ? walk.staked.sender
    : entity === 'factory'
      ? walk.staked.factory
      : entity === 'paymaster'
        ? walk.staked.paymaster
        : false;
}

/** The EntryPoint's own frames (trusted): each call out of them starts an entity's validation. */
function checkEntryPointFrame(walk: TreeWalk, frame: CallFrame): RuleViolation | undefined {
  for (const child of frame.calls ?? []) {
    const to = (child.to ?? '').toLowerCase();
    const type = child.type.toUpperCase();
    const entity: ValidationEntity = to === walk.sender ? 'account' : to === walk.paymaster ? 'paymaster' : 'factory';
    const violation =
      to === walk.entryPoint && type !== 'DELEGATECALL' && type !== 'CALLCODE'
        ? checkEntryPointFrame(walk, child)
        : checkFrame(walk, child, entity);
    if (violation) return violation;
  }
  return undefined;
}

/** Checks one frame an entity's code made (or ran in), then its children. */
function checkFrame(walk: TreeWalk, frame: CallFrame, entity: ValidationEntity): RuleViolation | undefined {
  const to = (frame.to ?? '').toLowerCase();
  const type = frame.type.toUpperCase();
  const halted = haltOrCreateViolation(walk, frame, entity);
  if (halted) return halted;
  if (to === walk.entryPoint && type !== 'DELEGATECALL' && type !== 'CALLCODE') {
    const input = (frame.input ?? '0x').toLowerCase();
    // OP-053 lets the sender call the fallback: also from its constructor, which runs in the factory's phase.
    const fromSender = entity === 'account' || frame.from.toLowerCase() === walk.sender;
    const allowed =
      (input === '0x' && fromSender) || (input.startsWith(depositToSelector) && (entity === 'account' || entity === 'factory'));
    if (!allowed)
      return {
        entity,
        opcode: type,
        rule: 'OP-054',
        detail: 'calls the EntryPoint other than through depositTo or its fallback',
      };
    return undefined; // the EntryPoint's own code runs from here
  }
  if (type !== 'CREATE2' && frame.value && BigInt(frame.value) > 0n)
    return { entity, opcode: type, rule: 'OP-061', detail: `sends value to ${to}` };
  if (type !== 'CREATE2' && isPrecompileAddress(to)) {
    if (!allowedPrecompiles.has(Number(BigInt(to))))
      return { entity, opcode: type, rule: 'OP-062', detail: `calls precompile ${to}` };
    return undefined;
  }
  const noCode = checkCode(walk, frame, entity);
  if (noCode) return noCode;
  for (const child of frame.calls ?? []) {
    const violation = checkFrame(walk, child, entity);
    if (violation) return violation;
  }
  return undefined;
}

/** A frame that ran out of gas or into an unassigned opcode, or that creates or destroys what it may not. */
function haltOrCreateViolation(walk: TreeWalk, frame: CallFrame, entity: ValidationEntity): RuleViolation | undefined {
  const to = (frame.to ?? '').toLowerCase();
  const type = frame.type.toUpperCase();
  if (frame.error && /out of gas/i.test(frame.error))
    return {
      entity,
      opcode: type,
      rule: 'OP-020',
      detail: `runs out of gas in a call to ${to} (which can depend on the gas limit)`,
    };
  if (frame.error && ranUnassignedOpcode(frame.error))
    return { entity, opcode: 'UNASSIGNED', rule: 'OP-013', detail: `runs an unassigned opcode in the code at ${to}` };
  if (type === 'SELFDESTRUCT') return { entity, opcode: 'SELFDESTRUCT', rule: 'OP-011' };
  const creator = frame.from.toLowerCase();
  const inFactoryPhase = entity === 'factory';
  if (type === 'CREATE') {
    if (createAllowed('CREATE', creator, inFactoryPhase, walk)) return undefined;
    return { entity, opcode: 'CREATE', rule: 'OP-011' };
  }
  if (type === 'CREATE2') {
    // OP-031: the sender's own deployment, once, in the factory's call (by the factory or a utility it calls).
    if (to === walk.sender && inFactoryPhase && walk.creates++ === 0) return undefined;
    if (createAllowed('CREATE2', creator, inFactoryPhase, walk)) return undefined;
    if (entity !== 'factory' || walk.creates > 1)
      return { entity, opcode: 'CREATE2', rule: 'OP-031', detail: 'uses CREATE2, which only the factory may, and once' };
    return { entity, opcode: 'CREATE2', rule: 'OP-031', detail: `creates ${to}, not the sender` };
  }
  return undefined;
}

/**
 * The code the frame runs (a delegated EOA's delegate's): a call to an address without code breaks
 * OP-041 (but the factory's call to the sender it creates); code that may reach a banned opcode is
 * left to the step-by-step trace.
 */
function checkCode(walk: TreeWalk, frame: CallFrame, entity: ValidationEntity): RuleViolation | undefined {
  const to = (frame.to ?? '').toLowerCase();
  const type = frame.type.toUpperCase();
  let code = type === 'CREATE2' || type === 'CREATE' ? frame.input : walk.codeOf.get(to);
  // An EIP-7702 account: its delegate's code is what runs.
  if (code?.toLowerCase().startsWith(delegationPrefix)) {
    const delegate = `0x${code.slice(delegationPrefix.length, delegationPrefix.length + 40)}`.toLowerCase();
    code = walk.codeOf.get(delegate);
    if (!code) {
      walk.undecided ??= `the code of ${to}'s delegate ${delegate} is not in the trace`;
      code = '0x00';
    }
  }
  if (!code || code === '0x') {
    if (!(to === walk.sender && entity === 'factory'))
      return { entity, opcode: type, rule: 'OP-041', detail: `calls ${to}, which has no code` };
    return undefined;
  }
  const found = walk.screen(code);
  const staked = isStaked(walk, entity);
  const banned = [...found.opcodes].filter((opcode) => !(staked && (opcode === 'BALANCE' || opcode === 'SELFBALANCE')));
  if (banned.length > 0 || found.gasNotBeforeCall)
    walk.undecided ??= `the code at ${to} contains ${banned.length > 0 ? banned.join(', ') : 'GAS not before a call'}`;
  if (found.extcode === 'other') {
    walk.undecided ??= `the code at ${to} reads other contracts' code (EXTCODE*)`;
    walk.targetsUndecided = true;
  }
  if (found.extcode === 'sizeIsZero') walk.checksCodeSize = true;
  return undefined;
}

/** Storage the validation touched: the sender's and a staked entity's are allowed; anything else needs the full trace. */
function checkStorage(walk: TreeWalk, prestate: Prestate): void {
  for (const [address, account] of Object.entries(prestate)) {
    const owner = address.toLowerCase();
    if (!account.storage || Object.keys(account.storage).length === 0) continue;
    if (owner === walk.entryPoint || owner === walk.sender) continue; // STO-010; the EntryPoint's own bookkeeping
    if (owner === walk.factory || owner === walk.paymaster) {
      const entity: ValidationEntity = owner === walk.factory ? 'factory' : 'paymaster';
      if (isStaked(walk, entity)) continue; // STO-031
      walk.undecided ??= `the ${entity} (unstaked) accesses its own storage`;
      walk.storageUndecided = true;
      continue;
    }
    walk.undecided ??= `validation accesses the storage of ${owner}`;
    walk.storageUndecided = true;
  }
}
