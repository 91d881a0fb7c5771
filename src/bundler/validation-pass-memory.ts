/**
 * Which pass settled the last validation of an account's ops, or of the ops a factory deploys: the
 * opcode-only step list, or the step tracer. A wallet's ops run the same code every time, and a factory
 * deploys the same account code, so the next op starts that pass beside the first two tracers instead
 * of after them (and does not try the opcode list first where it did not settle the last one).
 */
export type SettlingPass = 'opcodes' | 'steps';

export interface PassMemory {
  recall(key: string): SettlingPass | undefined;
  /** Undefined: the first two tracers alone settled it, nothing to start early. */
  remember(key: string, pass: SettlingPass | undefined): void;
}

/** Keeps the `limit` keys written last. */
export function createPassMemory(limit = 10_000): PassMemory {
  const passes = new Map<string, SettlingPass>();
  return {
    recall: (key) => passes.get(key),
    remember(key, pass) {
      passes.delete(key);
      if (pass === undefined) return;
      if (passes.size >= limit) passes.delete(passes.keys().next().value as string);
      passes.set(key, pass);
    },
  };
}

/** The key of an op's validation: its factory's when it deploys its sender, else its sender's. */
export function passKeyOf(entryPoint: string, who: string): string {
  return `${entryPoint}|${who}`.toLowerCase();
}
