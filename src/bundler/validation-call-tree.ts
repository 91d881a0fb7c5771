import type { BytecodeScreen } from './bytecode-screen.ts';
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
  readonly calls?: readonly CallFrame[];
}

/** A `prestateTracer` result: every account the call touched, with its code and the slots it accessed. */
export type Prestate = Readonly<Record<string, { readonly code?: string; readonly storage?: Readonly<Record<string, string>> }>>;

/** The verdict of the quick check: a broken rule, fine, or a step-by-step trace is needed to tell. */
export type QuickVerdict =
  | { readonly kind: 'violation'; readonly violation: RuleViolation }
  | { readonly kind: 'ok' }
  | { readonly kind: 'trace'; readonly why: string };

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
const isPrecompileAddress = (address: string) => BigInt(address) > 0n && BigInt(address) <= 0x1ffn;

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
  const entryPoint = entities.entryPoint.toLowerCase();
  const sender = entities.sender.toLowerCase();
  const factory = entities.factory?.toLowerCase();
  const paymaster = entities.paymaster?.toLowerCase();
  const codeOf = new Map<string, string>();
  for (const [address, account] of Object.entries(prestate)) if (account.code) codeOf.set(address.toLowerCase(), account.code);
  const stakedOf = (entity: ValidationEntity) =>
    entity === 'account'
      ? entities.staked.sender
      : entity === 'factory'
        ? entities.staked.factory
        : entity === 'paymaster'
          ? entities.staked.paymaster
          : false;
  const classify = (address: string): ValidationEntity =>
    address === sender ? 'account' : address === paymaster ? 'paymaster' : 'factory';
  let creates = 0;
  let undecided: string | undefined;

  // Created code first: the sender's code exists only inside this trace (the CREATE2 frame's output).
  const collectCreated = (frame: CallFrame) => {
    if ((frame.type === 'CREATE2' || frame.type === 'CREATE') && frame.to && frame.output && !frame.error)
      codeOf.set(frame.to.toLowerCase(), frame.output);
    for (const child of frame.calls ?? []) collectCreated(child);
  };
  collectCreated(root);

  /** Checks one frame an entity's code made (or ran in), then its children. */
  const checkFrame = (frame: CallFrame, entity: ValidationEntity): RuleViolation | undefined => {
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
    if (type === 'CREATE') return { entity, opcode: 'CREATE', rule: 'OP-011' };
    if (type === 'SELFDESTRUCT') return { entity, opcode: 'SELFDESTRUCT', rule: 'OP-011' };
    if (type === 'CREATE2') {
      if (++creates > 1 || entity !== 'factory')
        return { entity, opcode: 'CREATE2', rule: 'OP-031', detail: 'uses CREATE2, which only the factory may, and once' };
      if (to !== sender) return { entity, opcode: 'CREATE2', rule: 'OP-031', detail: `creates ${to}, not the sender` };
    }
    if (to === entryPoint && type !== 'DELEGATECALL' && type !== 'CALLCODE') {
      const input = (frame.input ?? '0x').toLowerCase();
      const allowed =
        (input === '0x' && entity === 'account') ||
        (input.startsWith(depositToSelector) && (entity === 'account' || entity === 'factory'));
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
    let code = type === 'CREATE2' ? frame.input : codeOf.get(to);
    // An EIP-7702 account: its delegate's code is what runs.
    if (code?.toLowerCase().startsWith(delegationPrefix)) {
      const delegate = `0x${code.slice(delegationPrefix.length, delegationPrefix.length + 40)}`.toLowerCase();
      code = codeOf.get(delegate);
      if (!code) {
        undecided ??= `the code of ${to}'s delegate ${delegate} is not in the trace`;
        code = '0x00';
      }
    }
    if (!code || code === '0x') {
      if (!(to === sender && entity === 'factory'))
        return { entity, opcode: type, rule: 'OP-041', detail: `calls ${to}, which has no code` };
    } else {
      const found = screen(code);
      const staked = stakedOf(entity);
      const banned = [...found.opcodes].filter((opcode) => !(staked && (opcode === 'BALANCE' || opcode === 'SELFBALANCE')));
      if (banned.length > 0 || found.gasNotBeforeCall)
        undecided ??= `the code at ${to} contains ${banned.length > 0 ? banned.join(', ') : 'GAS not before a call'}`;
    }
    for (const child of frame.calls ?? []) {
      const violation = checkFrame(child, entity);
      if (violation) return violation;
    }
    return undefined;
  };
  /** The EntryPoint's own frames (trusted): each call out of them starts an entity's validation. */
  const checkEntryPointFrame = (frame: CallFrame): RuleViolation | undefined => {
    for (const child of frame.calls ?? []) {
      const to = (child.to ?? '').toLowerCase();
      const type = child.type.toUpperCase();
      const violation =
        to === entryPoint && type !== 'DELEGATECALL' && type !== 'CALLCODE'
          ? checkEntryPointFrame(child)
          : checkFrame(child, classify(to));
      if (violation) return violation;
    }
    return undefined;
  };
  const violation = checkEntryPointFrame(root);
  if (violation) return { kind: 'violation', violation };

  for (const [address, account] of Object.entries(prestate)) {
    const owner = address.toLowerCase();
    if (!account.storage || Object.keys(account.storage).length === 0) continue;
    if (owner === entryPoint || owner === sender) continue; // STO-010; the EntryPoint's own bookkeeping
    if (owner === factory || owner === paymaster) {
      const entity: ValidationEntity = owner === factory ? 'factory' : 'paymaster';
      if (stakedOf(entity)) continue; // STO-031
      undecided ??= `the ${entity} (unstaked) accesses its own storage`;
      continue;
    }
    undecided ??= `validation accesses the storage of ${owner}`;
  }
  return undecided ? { kind: 'trace', why: undecided } : { kind: 'ok' };
}
