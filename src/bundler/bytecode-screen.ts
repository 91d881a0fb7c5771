/**
 * A static screen of EVM bytecode: which ERC-7562-relevant opcodes it could ever execute. It lets the
 * bundler skip the step-by-step trace of an op's validation when no code that validation runs could
 * use a banned opcode, which is almost always.
 *
 * Sound by construction: execution starts at offset 0 and moves to the next instruction unless it
 * hits a terminator; a jump may land only on a JUMPDEST at an instruction boundary (the same linear
 * sweep the EVM does). So every instruction that can run lies on a straight run from offset 0 or
 * from some JUMPDEST, up to the first terminator. Data after the code (metadata, constructor
 * arguments) is skipped unless it happens to hold a JUMPDEST byte, which at worst means a trace.
 */

/** Opcodes the screen reports when reachable. */
export const screenedOpcodes: Readonly<Record<number, string>> = {
  49: 'BALANCE',
  50: 'ORIGIN',
  58: 'GASPRICE',
  64: 'BLOCKHASH',
  65: 'COINBASE',
  66: 'TIMESTAMP',
  67: 'NUMBER',
  68: 'PREVRANDAO',
  69: 'GASLIMIT',
  71: 'SELFBALANCE',
  72: 'BASEFEE',
  73: 'BLOBHASH',
  74: 'BLOBBASEFEE',
  92: 'TLOAD',
  93: 'TSTORE',
  240: 'CREATE',
  255: 'SELFDESTRUCT',
};

const gasOpcode = 0x5a;
const extcodesize = 0x3b;
const extcodeOpcodes = new Set([extcodesize, 0x3c, 0x3f]);
const iszero = 0x15;
const jumpdest = 0x5b;
const callOpcodes = new Set([0xf1, 0xf2, 0xf4, 0xfa]);
/** STOP, JUMP, RETURN, REVERT, INVALID, SELFDESTRUCT: the next instruction is not reached from here. */
const terminators = new Set([0x00, 0x56, 0xf3, 0xfd, 0xfe, 0xff]);

export interface BytecodeScreen {
  /** Screened opcodes some execution of this code could run. */
  readonly opcodes: ReadonlySet<string>;
  /** A reachable GAS not followed at once by a *CALL (ERC-7562 OP-012 allows only GAS before a call). */
  readonly gasNotBeforeCall: boolean;
  /**
   * Reachable EXTCODE* (ERC-7562 OP-041: not on an address without code; OP-054: not on the EntryPoint,
   * but EXTCODESIZE followed by ISZERO, an existence check): 'sizeIsZero' when every one is that check.
   */
  readonly extcode: 'none' | 'sizeIsZero' | 'other';
}

const pushSize = (opcode: number) => (opcode >= 0x60 && opcode <= 0x7f ? opcode - 0x5f : 0);

/** Pure: the screen of one code (hex, with or without 0x). */
export function screenBytecode(code: string): BytecodeScreen {
  const hex = code.startsWith('0x') ? code.slice(2) : code;
  const length = hex.length >> 1;
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = Number.parseInt(hex.substr(i * 2, 2), 16);
  // Instruction boundaries (the linear sweep), then straight runs from 0 and from every JUMPDEST.
  const starts: number[] = [0];
  const boundary = new Uint8Array(length);
  for (let pc = 0; pc < length; pc += 1 + pushSize(bytes[pc]!)) {
    boundary[pc] = 1;
    if (bytes[pc] === jumpdest) starts.push(pc);
  }
  const visited = new Uint8Array(length);
  const opcodes = new Set<string>();
  let gasNotBeforeCall = false;
  let sizeIsZeroChecks = 0;
  let otherExtcode = false;
  for (const start of starts) {
    for (let pc = start; pc < length && !visited[pc]; pc += 1 + pushSize(bytes[pc]!)) {
      visited[pc] = 1;
      const opcode = bytes[pc]!;
      const name = screenedOpcodes[opcode];
      if (name) opcodes.add(name);
      if (opcode === gasOpcode) {
        const next = pc + 1 < length && boundary[pc + 1] ? bytes[pc + 1]! : -1;
        if (!callOpcodes.has(next)) gasNotBeforeCall = true;
      }
      if (extcodeOpcodes.has(opcode)) {
        const next = pc + 1 < length && boundary[pc + 1] ? bytes[pc + 1]! : -1;
        if (opcode === extcodesize && next === iszero) sizeIsZeroChecks++;
        else otherExtcode = true;
      }
      if (terminators.has(opcode)) break;
    }
  }
  const extcode = otherExtcode ? 'other' : sizeIsZeroChecks > 0 ? 'sizeIsZero' : 'none';
  return { opcodes, gasNotBeforeCall, extcode };
}

/** Screens remembered by code: contracts are few and their code rarely changes. */
export function createBytecodeScreenCache(maxEntries = 2_000) {
  const cache = new Map<string, BytecodeScreen>();
  return (code: string): BytecodeScreen => {
    const key = code.toLowerCase();
    let screen = cache.get(key);
    if (!screen) {
      screen = screenBytecode(key);
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
      cache.set(key, screen);
    }
    return screen;
  };
}
