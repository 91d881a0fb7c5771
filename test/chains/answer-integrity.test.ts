import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkCallAnswer } from '../../src/chains/answer-integrity.ts';
import { integrityChain, sender } from './support/integrity-chain.ts';
import { checkedFields, codeOf, type Json, otherHash, otherValue, read, tampered } from './support/integrity-tampering.ts';

const { call, value } = integrityChain();

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
