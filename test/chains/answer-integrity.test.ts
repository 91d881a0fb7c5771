import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCallAnswer } from '../../src/chains/answer-integrity.ts';
import { type BundleAnswer, checkBlockBundle, checkBundleBatch, checkChainLinks } from '../../src/chains/block-integrity.ts';
import type { Devnet } from '../../src/chains/devnet.ts';
import type { IntegrityProblem } from '../../src/chains/integrity-fields.ts';
import { splitRpcAnswer } from '../../src/jsonrpc/raw-answer.ts';
import { startTestAnvil } from '../support/anvil.ts';

type Json = Record<string, unknown>;
type Path = readonly (string | number)[];
type Code = IntegrityProblem['code'];

/** anvil's first default account, unlocked for eth_sendTransaction. */
const sender = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
/**
 * Creation code that emits LOG1(topic 1) and LOG1(topic 2) in its constructor and deploys
 * `CALLER PUSH1 0xaa PUSH1 0 PUSH1 0 LOG2 STOP`: every call to it emits one log.
 */
const emitterCreation = '0x600160006000a1600260006000a16009601a60003960096000f33360aa60006000a200';
const otherHash = `0x${'ab'.repeat(32)}`;

let anvil: Devnet;
let nextId = 1;

/** One call's answer: the raw `result` text as the cache would store it, and its parsed value. */
async function call(method: string, params: unknown[]): Promise<{ raw: string; value: unknown }> {
  const id = nextId++;
  const response = await fetch(anvil.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  const answer = splitRpcAnswer(await response.text(), String(id));
  if (answer?.kind !== 'result') throw new Error(`${method} failed: ${answer?.raw}`);
  return { raw: answer.raw, value: JSON.parse(answer.raw) };
}

const value = async (method: string, params: unknown[]) => (await call(method, params)).value;

/**
 * Block 1: a plain transfer and a deployment (2 logs). Block 2: a call (1 log), a deployment
 * (2 logs), a call (1 log), so log indexes 0..3 span three transactions. Block 3: empty.
 */
async function buildChain(): Promise<void> {
  await value('evm_setAutomine', [false]);
  const send = (tx: Json) => value('eth_sendTransaction', [{ from: sender, gas: '0x30000', ...tx }]);
  await send({ to: '0x00000000000000000000000000000000000b10c5', value: '0x1' });
  const deployment = (await send({ data: emitterCreation })) as string;
  await value('evm_mine', []);
  const receipt = (await value('eth_getTransactionReceipt', [deployment])) as { contractAddress: string };
  await send({ to: receipt.contractAddress });
  await send({ data: emitterCreation });
  await send({ to: receipt.contractAddress });
  await value('evm_mine', []);
  await value('evm_mine', []);
}

async function bundleOf(number: number): Promise<BundleAnswer> {
  const hex = `0x${number.toString(16)}`;
  return {
    block: await value('eth_getBlockByNumber', [hex, true]),
    receipts: await value('eth_getBlockReceipts', [hex]),
    traces: await value('trace_block', [hex]),
  };
}

const bundles: BundleAnswer[] = [];

beforeAll(async () => {
  anvil = await startTestAnvil();
  await buildChain();
  for (let number = 1; number <= 3; number++) bundles.push(await bundleOf(number));
});

afterAll(async () => {
  await anvil?.stop();
});

/** A deep copy of `root` with the field at `path` set to `replacement`, or deleted when it is undefined. */
function tampered<T>(root: T, path: Path, replacement: unknown): T {
  const copy = structuredClone(root);
  let parent = copy as unknown as Json;
  for (const key of path.slice(0, -1)) parent = parent[key] as Json;
  const last = path.at(-1)!;
  if (replacement === undefined) delete parent[last];
  else parent[last] = replacement;
  return copy;
}

function read(root: unknown, path: Path): unknown {
  let at = root;
  for (const key of path) at = (at as Json)[key];
  return at;
}

const codeOf = (found: IntegrityProblem | undefined) => found?.code;
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

interface CheckedField {
  path: Path;
  kind: 'quantity' | 'hash' | 'number';
  code: Code;
}

/** Every field of bundle 2 (of the batch 1..3) a check reads, with the problem its tampering is. */
function checkedFields(bundle: BundleAnswer): CheckedField[] {
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
function otherValue(kind: CheckedField['kind'], original: unknown): fc.Arbitrary<unknown> {
  if (kind === 'hash')
    return fc
      .uint8Array({ minLength: 32, maxLength: 32 })
      .map((bytes) => `0x${Buffer.from(bytes).toString('hex')}`)
      .filter((hash) => hash !== String(original).toLowerCase());
  const numbers = fc.integer({ min: 0, max: 2 ** 40 });
  if (kind === 'number') return numbers.filter((n) => n !== original);
  return numbers.map((n) => `0x${n.toString(16)}`).filter((hex) => hex !== original);
}

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

describe('checkCallAnswer on real anvil answers', () => {
  it('passes what anvil answers', async () => {
    const block = (await value('eth_getBlockByNumber', ['0x2', true])) as { hash: string; transactions: { hash: string }[] };
    const txHash = block.transactions[1]!.hash;
    const calls: [string, unknown[]][] = [
      ['eth_getBlockByNumber', ['0x2', true]],
      ['eth_getBlockByNumber', ['0x2', false]],
      ['eth_getBlockByNumber', ['latest', false]],
      ['eth_getBlockByHash', [block.hash, true]],
      ['eth_getTransactionByHash', [txHash]],
      ['eth_getTransactionReceipt', [txHash]],
      ['eth_getBlockReceipts', ['0x2']],
      ['eth_getBlockReceipts', [block.hash]],
      ['eth_getBlockReceipts', ['latest']],
      ['eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x3' }]],
      ['eth_getLogs', [{ blockHash: block.hash }]],
      ['eth_getLogs', [{ fromBlock: '0x1', toBlock: 'latest', topics: [`0x${'aa'.padStart(64, '0')}`] }]],
      ['eth_chainId', []],
      ['eth_getBalance', [sender, '0x2']],
    ];
    for (const [method, params] of calls) {
      const { raw } = await call(method, params);
      expect(checkCallAnswer(method, params, raw), `${method} ${JSON.stringify(params)}`).toBeUndefined();
    }
  });

  it('refuses a block that is not the one asked, by number or by hash', async () => {
    const { raw, value: block } = await call('eth_getBlockByNumber', ['0x2', true]);
    const { hash, transactions } = block as { hash: string; transactions: { hash: string }[] };
    expect(codeOf(checkCallAnswer('eth_getBlockByNumber', ['0x3', true], raw))).toBe('wrong_block');
    expect(codeOf(checkCallAnswer('eth_getBlockByNumber', ['0x2', true], raw.replace('"number":"0x2"', '"number":"0x12"')))).toBe(
      'wrong_block',
    );
    expect(codeOf(checkCallAnswer('eth_getBlockByHash', [otherHash, true], raw))).toBe('wrong_hash');
    // The block's own hash, not the first "hash" in the text: here the transactions come first.
    const { transactions: _, ...header } = block as Json;
    const txsFirst = JSON.stringify({ transactions, ...header });
    expect(checkCallAnswer('eth_getBlockByHash', [hash, true], txsFirst)).toBeUndefined();
    expect(codeOf(checkCallAnswer('eth_getBlockByHash', [transactions[0]!.hash, true], txsFirst))).toBe('wrong_hash');
  });

  it('refuses a transaction or receipt of another hash, and a receipt whose logs are not its own', async () => {
    const block = (await value('eth_getBlockByNumber', ['0x2', false])) as { transactions: string[] };
    const txHash = block.transactions[1]!;
    const { raw: tx } = await call('eth_getTransactionByHash', [txHash]);
    expect(codeOf(checkCallAnswer('eth_getTransactionByHash', [otherHash], tx))).toBe('wrong_hash');
    const { raw, value: receipt } = await call('eth_getTransactionReceipt', [txHash]);
    const check = (changed: unknown) => codeOf(checkCallAnswer('eth_getTransactionReceipt', [txHash], JSON.stringify(changed)));
    expect(codeOf(checkCallAnswer('eth_getTransactionReceipt', [otherHash], raw))).toBe('wrong_hash');
    expect(check(tampered(receipt, ['logs', 1, 'transactionHash'], otherHash))).toBe('log_mismatch');
    expect(check(tampered(receipt, ['logs', 0, 'blockNumber'], '0x1'))).toBe('log_mismatch');
    expect(check(tampered(receipt, ['logs', 1, 'logIndex'], '0x5'))).toBe('log_index_gap');
    expect(check(tampered(receipt, ['blockHash'], undefined))).toBe('malformed');
  });

  it('refuses block receipts of another block, disagreeing, or with log gaps', async () => {
    const { raw, value: receipts } = await call('eth_getBlockReceipts', ['0x2']);
    const blockHash = (receipts as { blockHash: string }[])[0]!.blockHash;
    const check = (params: unknown[], changed: unknown) =>
      codeOf(checkCallAnswer('eth_getBlockReceipts', params, JSON.stringify(changed)));
    expect(codeOf(checkCallAnswer('eth_getBlockReceipts', ['0x1'], raw))).toBe('wrong_block');
    expect(codeOf(checkCallAnswer('eth_getBlockReceipts', [otherHash], raw))).toBe('wrong_block');
    expect(codeOf(checkCallAnswer('eth_getBlockReceipts', [{ blockHash: otherHash }], raw))).toBe('wrong_block');
    expect(check([blockHash], tampered(receipts, [2, 'blockHash'], otherHash))).toBe('receipt_mismatch');
    expect(check(['latest'], tampered(receipts, [1, 'blockNumber'], '0x1'))).toBe('receipt_mismatch');
    expect(check(['0x2'], tampered(receipts, [2, 'transactionIndex'], '0x1'))).toBe('receipt_mismatch');
    expect(check(['0x2'], tampered(receipts, [2, 'logs', 0, 'logIndex'], '0x4'))).toBe('log_index_gap');
    expect(check(['0x2'], tampered(receipts, [1, 'logs', 0, 'transactionIndex'], '0x0'))).toBe('log_mismatch');
    expect(codeOf(checkCallAnswer('eth_getBlockReceipts', ['0x2'], '{"blockNumber":"0x2"}'))).toBe('malformed');
    expect(checkCallAnswer('eth_getBlockReceipts', ['0x2'], '[]')).toBeUndefined();
  });

  it('property: any one receipt or log field of block receipts changed fails the check', async () => {
    const { value: receipts } = await call('eth_getBlockReceipts', ['0x2']);
    // Without the block's transactions a receipt's own transactionHash has nothing to be compared with.
    const fields = checkedFields({ block: {}, receipts, traces: [] }).filter(
      (field) => field.path[0] === 'receipts' && !(field.path.length === 3 && field.path[2] === 'transactionHash'),
    );
    const tamperings = fc
      .constantFrom(...fields)
      .chain((field) => otherValue(field.kind, read({ receipts }, field.path)).map((replacement) => ({ field, replacement })));
    fc.assert(
      fc.property(tamperings, ({ field, replacement }) => {
        const changed = tampered({ receipts }, field.path, replacement).receipts;
        expect(checkCallAnswer('eth_getBlockReceipts', ['0x2'], JSON.stringify(changed))).toBeDefined();
      }),
      { numRuns: 500 },
    );
  });

  it('refuses logs outside the range or block asked, out of order, or from two forks', async () => {
    const { raw, value: logs } = await call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x2' }]);
    const list = logs as Json[];
    const check = (filter: Json, changed: unknown) => codeOf(checkCallAnswer('eth_getLogs', [filter], JSON.stringify(changed)));
    const range = { fromBlock: '0x1', toBlock: '0x2' };
    expect(list).toHaveLength(6);
    expect(codeOf(checkCallAnswer('eth_getLogs', [{ fromBlock: '0x2', toBlock: '0x2' }], raw))).toBe('log_mismatch');
    expect(codeOf(checkCallAnswer('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x1' }], raw))).toBe('log_mismatch');
    expect(codeOf(checkCallAnswer('eth_getLogs', [{ fromBlock: '0x1', toBlock: 'latest' }], raw))).toBeUndefined();
    expect(check({ blockHash: list[2]!.blockHash }, list.slice(2))).toBeUndefined();
    expect(check({ blockHash: list[0]!.blockHash }, list.slice(1))).toBe('log_mismatch');
    expect(check(range, [...list].reverse())).toBe('log_index_gap');
    expect(check(range, [list[2], list[2]])).toBe('log_index_gap');
    expect(check(range, tampered(list, [3, 'blockHash'], otherHash))).toBe('log_mismatch');
    expect(check(range, tampered(list, [3, 'transactionHash'], '0x12'))).toBe('malformed');
    expect(codeOf(checkCallAnswer('eth_getLogs', [range], '{}'))).toBe('malformed');
  });

  it('skips what it cannot or need not check', () => {
    expect(checkCallAnswer('eth_getBlockByNumber', ['0x2', false], 'null')).toBeUndefined();
    expect(checkCallAnswer('eth_getBlockByNumber', ['pending', false], '{"number":null}')).toBeUndefined();
    expect(checkCallAnswer('eth_chainId', [], '"0x7a69"')).toBeUndefined();
    expect(checkCallAnswer('eth_call', [{}, '0x2'], '"0x"')).toBeUndefined();
    expect(codeOf(checkCallAnswer('eth_getBlockByNumber', ['0x2', false], '"0x2"'))).toBe('malformed');
    expect(codeOf(checkCallAnswer('eth_getTransactionByHash', [otherHash], '{"hash":"0x12"}'))).toBe('malformed');
  });
});
