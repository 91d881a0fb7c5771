import { type CallFrame, isPrecompileAddress } from './validation-call-tree.ts';
import type { OpcodeStep } from './validation-opcode-steps.ts';

/** Reads of another account's code: OP-041 and OP-054 depend on their target. */
const codeReadOpcodes: ReadonlySet<string> = new Set(['EXTCODESIZE', 'EXTCODEHASH', 'EXTCODECOPY']);

/**
 * Whether an EXTCODE* step ran in code other than the EntryPoint's own. The opcode-only step list has
 * depths but no addresses; the call tree has the frames in the order they were entered, so each step
 * into a deeper depth is the next child frame that runs code (a precompile or an address without code
 * runs none). The EntryPoint's own frames (its simulation calls itself, and reads the sender's code
 * there) are trusted, as at the top. Where the two cannot be lined up for certain (a child that used
 * no gas, a depth that skips a level, no child left), the answer is true: the step tracer decides.
 * Pure: the steps, the tree and what has code in; the verdict out.
 */
export function codeReadOutsideEntryPoint(
  steps: readonly OpcodeStep[],
  root: CallFrame,
  hasCode: (address: string) => boolean,
  entryPoint: string,
): boolean {
  const ownCode = (frame: CallFrame) => runsEntryPointCode(frame, entryPoint.toLowerCase());
  const entered: { frame: CallFrame; nextChild: number; trusted: boolean }[] = [
    { frame: root, nextChild: 0, trusted: ownCode(root) },
  ];
  for (const step of steps) {
    if (step.depth > entered.length + 1 || step.depth < 1) return true;
    if (step.depth === entered.length + 1) {
      const parent = entered.at(-1)!;
      const child = nextFrameWithCode(parent, hasCode);
      if (child === 'unsure') return true;
      entered.push({ frame: child, nextChild: 0, trusted: ownCode(child) });
    }
    entered.length = step.depth;
    if (codeReadOpcodes.has(step.op) && !entered.at(-1)!.trusted) return true;
  }
  return false;
}

function runsEntryPointCode(frame: CallFrame, entryPoint: string): boolean {
  const type = frame.type.toUpperCase();
  return (type === 'CALL' || type === 'STATICCALL') && (frame.to ?? '').toLowerCase() === entryPoint;
}

/** The parent's next child that ran code, skipping those that cannot have (precompiles, no code, empty init code). */
function nextFrameWithCode(
  parent: { frame: CallFrame; nextChild: number },
  hasCode: (address: string) => boolean,
): CallFrame | 'unsure' {
  const children = parent.frame.calls ?? [];
  while (parent.nextChild < children.length) {
    const child = children[parent.nextChild++]!;
    const type = child.type.toUpperCase();
    const creates = type === 'CREATE' || type === 'CREATE2';
    const to = child.to ?? '';
    if (creates ? (child.input ?? '0x').length <= 2 : !to || isPrecompileAddress(to) || !hasCode(to)) continue;
    // Code that ran used gas; none used is a call refused before its code ran (or code that only STOPs).
    if (child.gasUsed === undefined || BigInt(child.gasUsed) === 0n) return 'unsure';
    return child;
  }
  return 'unsure';
}
