/**
 * ERC-7562 OP-011/OP-080/OP-031: what validation code may not use, because its result can differ
 * between the simulation and the bundle (or lets one op change what another sees).
 */
export const bannedOpcodes: ReadonlySet<string> = new Set([
  'GASPRICE',
  'GASLIMIT',
  'DIFFICULTY',
  'PREVRANDAO',
  'TIMESTAMP',
  'BASEFEE',
  'BLOCKHASH',
  'NUMBER',
  'SELFBALANCE',
  'BALANCE',
  'ORIGIN',
  'COINBASE',
  'SELFDESTRUCT',
  'CREATE',
  'BLOBHASH',
  'BLOBBASEFEE',
]);
export const callOpcodeNames: ReadonlySet<string> = new Set(['CALL', 'STATICCALL', 'DELEGATECALL', 'CALLCODE']);
/** Transient storage counts as storage (OP-070): the step tracer judges whose it is. */
const transientStorage = new Set(['TLOAD', 'TSTORE']);

/** One step of the struct logger with its stack, memory and storage left out. */
export interface OpcodeStep {
  readonly op: string;
  readonly depth: number;
}

/**
 * The struct logger's options for the opcode-only list: each step's opcode and depth, nothing else.
 * On anvil a v0.8 SimpleAccount op's validation (4,000-7,000 steps) costs 8-18 ms this way, against
 * 48-135 ms for the JavaScript step tracer.
 */
export const opcodeStepOptions = {
  disableStack: true,
  disableMemory: true,
  disableStorage: true,
  enableReturnData: false,
} as const;

/**
 * Whether no opcode an ERC-7562 rule may forbid ran outside the EntryPoint's own top frame (depth 1):
 * no banned opcode (BALANCE and SELFBALANCE included, which only a staked entity may use), no
 * transient storage, and GAS only right before a call. It can only clear an op, never name a broken
 * rule: without the stack it cannot tell which entity ran a step (the EntryPoint's code called back
 * at a deeper depth counts too), so anything it does not clear goes to the step tracer, which judges.
 * Pure: the steps in, the verdict out.
 */
export function opcodeStepsAreClean(steps: readonly OpcodeStep[]): boolean {
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    if (step.depth < 2) continue;
    if (step.op === 'GAS') {
      const next = steps[i + 1];
      if (!next || next.depth !== step.depth || !callOpcodeNames.has(next.op)) return false;
      continue;
    }
    if (bannedOpcodes.has(step.op) || transientStorage.has(step.op)) return false;
  }
  return true;
}
