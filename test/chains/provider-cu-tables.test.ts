import { describe, expect, it } from 'vitest';
import { costOf } from '../../src/chains/provider-cu-tables.ts';
import { cuTableNames } from '../../src/config/chain-settings.ts';

/** Every standard eth_/net_/web3_ read and write, logs and receipts, traces and subscriptions. */
const standardMethods = [
  'eth_accounts',
  'eth_blobBaseFee',
  'eth_blockNumber',
  'eth_call',
  'eth_chainId',
  'eth_coinbase',
  'eth_createAccessList',
  'eth_estimateGas',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_getBalance',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getCode',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_getLogs',
  'eth_getProof',
  'eth_getStorageAt',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionByHash',
  'eth_getTransactionCount',
  'eth_getTransactionReceipt',
  'eth_getUncleByBlockHashAndIndex',
  'eth_getUncleByBlockNumberAndIndex',
  'eth_getUncleCountByBlockHash',
  'eth_getUncleCountByBlockNumber',
  'eth_hashrate',
  'eth_maxPriorityFeePerGas',
  'eth_mining',
  'eth_newBlockFilter',
  'eth_newFilter',
  'eth_newPendingTransactionFilter',
  'eth_protocolVersion',
  'eth_sendRawTransaction',
  'eth_sendTransaction',
  'eth_sign',
  'eth_signTransaction',
  'eth_simulateV1',
  'eth_subscribe',
  'eth_syncing',
  'eth_uninstallFilter',
  'eth_unsubscribe',
  'net_listening',
  'net_peerCount',
  'net_version',
  'web3_clientVersion',
  'web3_sha3',
  'debug_traceBlockByHash',
  'debug_traceBlockByNumber',
  'debug_traceCall',
  'debug_traceTransaction',
  'trace_block',
  'trace_call',
  'trace_callMany',
  'trace_filter',
  'trace_get',
  'trace_rawTransaction',
  'trace_replayBlockTransactions',
  'trace_replayTransaction',
  'trace_transaction',
];

describe('provider CU tables', () => {
  it.each(cuTableNames)('%s prices every standard method', (table) => {
    for (const method of standardMethods) {
      const cost = costOf(table, method);
      expect(Number.isFinite(cost) && cost >= 0, `${table} ${method}`).toBe(true);
    }
  });

  it("holds Alchemy's published costs, Throughput CU where one is given", () => {
    expect(costOf('alchemy', 'eth_chainId')).toBe(0);
    expect(costOf('alchemy', 'eth_blockNumber')).toBe(10);
    expect(costOf('alchemy', 'eth_getBalance')).toBe(20);
    expect(costOf('alchemy', 'eth_call')).toBe(26);
    expect(costOf('alchemy', 'eth_getLogs')).toBe(60);
    expect(costOf('alchemy', 'eth_getBlockReceipts')).toBe(500);
    expect(costOf('alchemy', 'eth_sendRawTransaction')).toBe(250);
    expect(costOf('alchemy', 'debug_traceTransaction')).toBe(1000);
    expect(costOf('alchemy', 'trace_replayBlockTransactions')).toBe(3000);
    expect(costOf('alchemy', 'eth_subscribe')).toBe(10);
  });

  it("holds QuickNode's rule: the chain's 20, 2x for trace/debug/txpool, 4x for the large calls", () => {
    expect(costOf('quicknode', 'eth_blockNumber')).toBe(20);
    expect(costOf('quicknode', 'eth_getLogs')).toBe(20);
    expect(costOf('quicknode', 'eth_sendRawTransaction')).toBe(20);
    expect(costOf('quicknode', 'eth_subscribe')).toBe(20);
    expect(costOf('quicknode', 'debug_traceTransaction')).toBe(40);
    expect(costOf('quicknode', 'trace_block')).toBe(40);
    expect(costOf('quicknode', 'txpool_status')).toBe(40);
    expect(costOf('quicknode', 'trace_replayTransaction')).toBe(80);
    expect(costOf('quicknode', 'txpool_content')).toBe(80);
  });

  it("holds Infura's published credits and its default of 80", () => {
    expect(costOf('infura', 'eth_chainId')).toBe(5);
    expect(costOf('infura', 'eth_blockNumber')).toBe(80);
    expect(costOf('infura', 'eth_getLogs')).toBe(255);
    expect(costOf('infura', 'eth_getBlockReceipts')).toBe(1000);
    expect(costOf('infura', 'eth_sendRawTransaction')).toBe(80);
    expect(costOf('infura', 'eth_estimateGas')).toBe(300);
    expect(costOf('infura', 'trace_call')).toBe(300);
    expect(costOf('infura', 'debug_traceCall')).toBe(1000);
    expect(costOf('infura', 'eth_subscribe')).toBe(5);
    expect(costOf('infura', 'eth_unsubscribe')).toBe(10);
    expect(costOf('infura', 'trace_replayTransaction')).toBe(80);
  });

  it('charges one per call on the flat table', () => {
    for (const method of standardMethods) expect(costOf('flat', method)).toBe(1);
  });

  it.each(cuTableNames)('%s gives its default to unknown methods, prototype names included', (table) => {
    const fallback = costOf(table, 'xyz_unknownMethod');
    expect(fallback).toBeGreaterThan(0);
    for (const method of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(costOf(table, method)).toBe(fallback);
    }
  });
});
