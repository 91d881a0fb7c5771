import fc from 'fast-check';
import type { BundleAnswer } from '../../../src/chains/block-integrity.ts';
import type { IntegrityProblem } from '../../../src/chains/integrity-fields.ts';

/** Tampering with real answers, shared by block-integrity.test.ts and answer-integrity.test.ts. */

export type Json = Record<string, unknown>;
export type Path = readonly (string | number)[];
export type Code = IntegrityProblem['code'];

export const otherHash = `0x${'ab'.repeat(32)}`;

/** A deep copy of `root` with the field at `path` set to `replacement`, or deleted when it is undefined. */
export function tampered<T>(root: T, path: Path, replacement: unknown): T {
  const copy = structuredClone(root);
  let parent = copy as unknown as Json;
  for (const key of path.slice(0, -1)) parent = parent[key] as Json;
  const last = path.at(-1)!;
  if (replacement === undefined) delete parent[last];
  else parent[last] = replacement;
  return copy;
}

export function read(root: unknown, path: Path): unknown {
  let at = root;
  for (const key of path) at = (at as Json)[key];
  return at;
}

export const codeOf = (found: IntegrityProblem | undefined) => found?.code;

export interface CheckedField {
  path: Path;
  kind: 'quantity' | 'hash' | 'number';
  code: Code;
}

/** Every field of bundle 2 (of the batch 1..3) a check reads, with the problem its tampering is. */
export function checkedFields(bundle: BundleAnswer): CheckedField[] {
  const fields: CheckedField[] = [
    { path: ['block', 'number'], kind: 'quantity', code: 'wrong_block' },
    { path: ['block', 'hash'], kind: 'hash', code: 'wrong_block' },
    { path: ['block', 'parentHash'], kind: 'hash', code: 'broken_link' },
  ];
  const add = (prefix: Path, names: readonly string[], kind: CheckedField['kind'], code: Code) => {
    for (const name of names) fields.push({ path: [...prefix, name], kind, code });
  };
  ((read(bundle, ['block', 'transactions']) ?? []) as unknown[]).forEach((_tx, i) => {
    add(['block', 'transactions', i], ['hash'], 'hash', 'receipt_mismatch');
    add(['block', 'transactions', i], ['blockHash'], 'hash', 'wrong_block');
    add(['block', 'transactions', i], ['blockNumber', 'transactionIndex'], 'quantity', 'wrong_block');
  });
  (bundle.receipts as { logs: unknown[] }[]).forEach((receipt, i) => {
    add(['receipts', i], ['transactionHash', 'blockHash'], 'hash', 'receipt_mismatch');
    add(['receipts', i], ['transactionIndex', 'blockNumber'], 'quantity', 'receipt_mismatch');
    receipt.logs.forEach((_log, j) => {
      add(['receipts', i, 'logs', j], ['transactionHash', 'blockHash'], 'hash', 'log_mismatch');
      add(['receipts', i, 'logs', j], ['transactionIndex', 'blockNumber'], 'quantity', 'log_mismatch');
      add(['receipts', i, 'logs', j], ['logIndex'], 'quantity', 'log_index_gap');
    });
  });
  (bundle.traces as unknown[]).forEach((_trace, i) => {
    add(['traces', i], ['transactionHash', 'blockHash'], 'hash', 'wrong_block');
    add(['traces', i], ['blockNumber', 'transactionPosition'], 'number', 'wrong_block');
  });
  return fields;
}

/** A well-formed value of the field's kind that differs from `original`. */
export function otherValue(kind: CheckedField['kind'], original: unknown): fc.Arbitrary<unknown> {
  if (kind === 'hash')
    return fc
      .uint8Array({ minLength: 32, maxLength: 32 })
      .map((bytes) => `0x${Buffer.from(bytes).toString('hex')}`)
      .filter((hash) => hash !== String(original).toLowerCase());
  const numbers = fc.integer({ min: 0, max: 2 ** 40 });
  if (kind === 'number') return numbers.filter((n) => n !== original);
  return numbers.map((n) => `0x${n.toString(16)}`).filter((hex) => hex !== original);
}
