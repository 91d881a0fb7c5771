import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkBlockBundle, checkBundleBatch, checkChainLinks } from '../../src/chains/block-integrity.ts';
import { integrityChain } from './support/integrity-chain.ts';
import {
  type Code,
  checkedFields,
  codeOf,
  otherHash,
  otherValue,
  type Path,
  read,
  tampered,
} from './support/integrity-tampering.ts';

const { value, bundles } = integrityChain();

const block2 = () => bundles[1]!;

describe('checkBlockBundle on real anvil blocks', () => {
  it('passes every block as anvil answers it, with and without traces, with full transactions or hashes', async () => {
    expect(bundles.map((bundle, index) => checkBlockBundle(bundle, index + 1))).toEqual([undefined, undefined, undefined]);
    const withoutTraces = { block: block2().block, receipts: block2().receipts };
    expect(checkBlockBundle(withoutTraces, 2)).toBeUndefined();
    const hashesOnly = { block: await value('eth_getBlockByNumber', ['0x2', false]), receipts: block2().receipts };
    expect(checkBlockBundle(hashesOnly, 2)).toBeUndefined();
  });

  it('the fixture is what the checks are about: logs 0..3 across three transactions of block 2', () => {
    const receipts = block2().receipts as { logs: { logIndex: string; transactionIndex: string }[] }[];
    const logs = receipts.flatMap((receipt) => receipt.logs.map((log) => [log.logIndex, log.transactionIndex]));
    expect(logs).toEqual([
      ['0x0', '0x0'],
      ['0x1', '0x1'],
      ['0x2', '0x1'],
      ['0x3', '0x2'],
    ]);
  });

  const cases: [string, Path, unknown, Code][] = [
    ['the block is another number', ['block', 'number'], '0x3', 'wrong_block'],
    ['the block hash is not a hash', ['block', 'hash'], '0x1234', 'malformed'],
    ['the block hash is another', ['block', 'hash'], otherHash, 'wrong_block'],
    ['the parent hash is missing', ['block', 'parentHash'], undefined, 'malformed'],
    ['a transaction hash', ['block', 'transactions', 1, 'hash'], otherHash, 'receipt_mismatch'],
    ['a transaction block hash', ['block', 'transactions', 1, 'blockHash'], otherHash, 'wrong_block'],
    ['a transaction block number', ['block', 'transactions', 1, 'blockNumber'], '0x1', 'wrong_block'],
    ['a transaction index', ['block', 'transactions', 1, 'transactionIndex'], '0x2', 'wrong_block'],
    ['a receipt transaction hash', ['receipts', 1, 'transactionHash'], otherHash, 'receipt_mismatch'],
    ['a receipt transaction index', ['receipts', 1, 'transactionIndex'], '0x0', 'receipt_mismatch'],
    ['a receipt block hash', ['receipts', 1, 'blockHash'], otherHash, 'receipt_mismatch'],
    ['a receipt block number', ['receipts', 1, 'blockNumber'], '0x3', 'receipt_mismatch'],
    ['a receipt without blockHash (required)', ['receipts', 1, 'blockHash'], undefined, 'malformed'],
    ['a receipt without logs (required)', ['receipts', 1, 'logs'], undefined, 'malformed'],
    ['a log transaction hash', ['receipts', 1, 'logs', 0, 'transactionHash'], otherHash, 'log_mismatch'],
    ['a log transaction index', ['receipts', 1, 'logs', 0, 'transactionIndex'], '0x2', 'log_mismatch'],
    ['a log block hash', ['receipts', 1, 'logs', 0, 'blockHash'], otherHash, 'log_mismatch'],
    ['a log block number', ['receipts', 1, 'logs', 0, 'blockNumber'], '0x1', 'log_mismatch'],
    ['a log index skipped', ['receipts', 1, 'logs', 1, 'logIndex'], '0x3', 'log_index_gap'],
    ['a log index not a quantity', ['receipts', 1, 'logs', 1, 'logIndex'], 2, 'malformed'],
    ['a trace of a transaction of another block', ['traces', 1, 'transactionHash'], otherHash, 'wrong_block'],
    ['a trace of another block', ['traces', 1, 'blockNumber'], 1, 'wrong_block'],
    ['a trace at another position', ['traces', 1, 'transactionPosition'], 2, 'wrong_block'],
  ];
  it.each(cases)('%s: %s', (_name, path, replacement, code) => {
    expect(checkBlockBundle(block2(), 2)).toBeUndefined();
    const found = checkBlockBundle(tampered(block2(), path, replacement), 2);
    expect(found?.code).toBe(code);
    expect(found!.detail.length).toBeLessThan(200);
  });

  it('names the field and both values in the detail', () => {
    const found = checkBlockBundle(tampered(block2(), ['receipts', 2, 'blockNumber'], '0x7'), 2);
    expect(found).toEqual({ code: 'receipt_mismatch', detail: 'receipts[2].blockNumber is 0x7, expected 0x2' });
  });

  it('refuses receipts out of order, missing or extra, and logs out of order', () => {
    const receipts = block2().receipts as unknown[];
    const swap = <T>(list: T[], a: number, b: number) => list.map((item, i) => (i === a ? list[b] : i === b ? list[a] : item));
    const reordered = { ...block2(), receipts: swap(receipts, 0, 1) };
    expect(codeOf(checkBlockBundle(reordered, 2))).toBe('receipt_mismatch');
    expect(codeOf(checkBlockBundle({ ...block2(), receipts: receipts.slice(1) }, 2))).toBe('receipt_mismatch');
    expect(codeOf(checkBlockBundle({ ...block2(), receipts: [...receipts, receipts[2]] }, 2))).toBe('receipt_mismatch');
    const logs = read(block2(), ['receipts', 1, 'logs']) as unknown[];
    expect(codeOf(checkBlockBundle(tampered(block2(), ['receipts', 1, 'logs'], swap(logs, 0, 1)), 2))).toBe('log_index_gap');
    expect(codeOf(checkBlockBundle(tampered(block2(), ['receipts', 1, 'logs'], logs.slice(1)), 2))).toBe('log_index_gap');
  });

  it('takes fields the spec leaves optional on a log as absent, not as a problem', () => {
    for (const field of ['blockHash', 'blockNumber', 'transactionIndex', 'logIndex', 'removed'])
      expect(checkBlockBundle(tampered(block2(), ['receipts', 1, 'logs', 0, field], undefined), 2)).toBeUndefined();
  });

  it('refuses answers that are not the shape asked for', () => {
    expect(codeOf(checkBlockBundle({ block: null, receipts: [] }, 2))).toBe('malformed');
    expect(codeOf(checkBlockBundle({ block: block2().block, receipts: null }, 2))).toBe('malformed');
    expect(codeOf(checkBlockBundle({ ...block2(), traces: {} }, 2))).toBe('malformed');
    expect(codeOf(checkBlockBundle(tampered(block2(), ['block', 'transactions', 0], 'not a hash'), 2))).toBe('malformed');
  });
});

describe('property: tampering any one checked field fails the check', () => {
  it('a batch with one field of block 2 changed to another well-formed value fails with that field’s code', () => {
    const fields = checkedFields(block2());
    expect(fields.length).toBeGreaterThan(50);
    expect(checkBundleBatch(bundles, 1)).toBeUndefined();
    const tamperings = fc
      .constantFrom(...fields)
      .chain((field) => otherValue(field.kind, read(block2(), field.path)).map((replacement) => ({ field, replacement })));
    fc.assert(
      fc.property(tamperings, ({ field, replacement }) => {
        const batch = bundles.map((bundle, i) => (i === 1 ? tampered(bundle, field.path, replacement) : bundle));
        expect(codeOf(checkBundleBatch(batch, 1))).toBe(field.code);
      }),
      { numRuns: 1000 },
    );
  });

  it('every field the spec requires, when absent, is malformed', () => {
    const optional = new Set(['logs/transactionIndex', 'logs/blockHash', 'logs/blockNumber', 'logs/logIndex']);
    for (const field of checkedFields(block2())) {
      const kind = field.path[0] === 'traces' ? 'traces' : `${String(field.path.at(-3))}/${String(field.path.at(-1))}`;
      const found = checkBlockBundle(tampered(block2(), field.path, undefined), 2);
      if (kind === 'traces' || optional.has(kind)) expect(found, field.path.join('.')).toBeUndefined();
      else expect(codeOf(found), field.path.join('.')).toBe('malformed');
    }
  });
});

describe('checkChainLinks and checkBundleBatch', () => {
  const links = () => bundles.map((bundle) => bundle.block as { number: string; hash: string; parentHash: string });

  it('passes consecutive real blocks, on the block below them too', async () => {
    const genesis = (await value('eth_getBlockByNumber', ['0x0', false])) as { number: string; hash: string };
    expect(checkChainLinks(links())).toBeUndefined();
    expect(checkChainLinks(links(), genesis)).toBeUndefined();
    expect(checkChainLinks(links(), { number: 0, hash: genesis.hash.toUpperCase().replace('0X', '0x') })).toBeUndefined();
    expect(checkChainLinks([])).toBeUndefined();
  });

  it('returns the index of the first block that does not sit on the one before', () => {
    const blocks = links();
    expect(checkChainLinks(tampered(blocks, [2, 'parentHash'], otherHash))).toBe(2);
    expect(checkChainLinks(tampered(blocks, [1, 'hash'], otherHash))).toBe(2);
    expect(checkChainLinks(blocks, { number: 0, hash: otherHash })).toBe(0);
    expect(checkChainLinks(blocks, { number: 1, hash: blocks[0]!.parentHash })).toBe(0);
    expect(checkChainLinks([blocks[0]!, blocks[2]!])).toBe(1);
  });

  it('a batch names the broken link', () => {
    const batch = tampered(bundles, [2, 'block', 'parentHash'], otherHash);
    const found = checkBundleBatch(batch, 1);
    expect(found?.code).toBe('broken_link');
    expect(found?.detail).toContain('block 3.parentHash is 0xabab');
    expect(checkBundleBatch(bundles, 2)).toEqual({ code: 'wrong_block', detail: 'block 2: block.number is 0x1, expected 0x2' });
  });
});
