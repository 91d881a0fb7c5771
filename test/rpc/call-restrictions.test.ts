import { readFileSync } from 'node:fs';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principal.ts';
import { contractNamingMethods } from '../../src/rpc/call-contracts.ts';
import { callRefusal, principalCallRefusal } from '../../src/rpc/call-restrictions.ts';

const listed = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const other = '0x00000000000000000000000000000000000000aa';
const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const contracts = { contracts: [listed] };
const prefix = "refused by this API key's restrictions.";

const signed = (to: `0x${string}` | undefined) =>
  account.signTransaction({
    chainId: 31337,
    type: 'eip1559',
    to,
    nonce: 0,
    gas: 21000n,
    maxFeePerGas: 1n,
    maxPriorityFeePerGas: 1n,
  });

describe('callRefusal: a key’s methods and contracts lists against one JSON-RPC call', () => {
  it('methods: a listed method passes, another is refused naming it; no list or an empty one restricts nothing', () => {
    const restrictions = { methods: ['eth_call', 'eth_blockNumber'] };
    expect(callRefusal(restrictions, 'eth_blockNumber', [])).toBeUndefined();
    expect(callRefusal(restrictions, 'eth_sendRawTransaction', ['0x'])).toBe(
      `${prefix}methods: the method 'eth_sendRawTransaction' is not listed`,
    );
    expect(callRefusal({ methods: [] }, 'eth_sendRawTransaction', [])).toBeUndefined();
    expect(callRefusal({}, 'eth_sendRawTransaction', [])).toBeUndefined();
  });

  it('contracts: the to of eth_call, eth_estimateGas, eth_createAccessList, debug_traceCall, whatever its case', () => {
    for (const method of ['eth_call', 'eth_estimateGas', 'eth_createAccessList', 'debug_traceCall', 'trace_call']) {
      expect(callRefusal(contracts, method, [{ to: listed.toLowerCase(), data: '0x' }, 'latest'])).toBeUndefined();
      expect(callRefusal(contracts, method, [{ to: other, data: '0x' }])).toBe(
        `${prefix}contracts: the contract ${other} is not listed`,
      );
      expect(callRefusal(contracts, method, [{ data: '0x60' }])).toBe(
        `${prefix}contracts: ${method} must name its contract ('to')`,
      );
    }
    // A Go node reads `To` as `to`: so is it read here.
    expect(callRefusal(contracts, 'eth_call', [{ To: other }])).toContain(`the contract ${other} is not listed`);
    // Go's simple folding: the long s is an s; ß is not ss (Go ignores `addreß`, so the filter has no address).
    expect(callRefusal(contracts, 'eth_getLogs', [{ addreſs: other }])).toContain(`the contract ${other} is not listed`);
    expect(callRefusal(contracts, 'eth_getLogs', [{ addreß: listed }])).toContain('eth_getLogs must name its addresses');
    // Named params cannot be checked: refused rather than passed.
    expect(callRefusal(contracts, 'eth_call', { to: listed })).toContain('must name its contract');
    expect(callRefusal(contracts, 'eth_call', [{ to: 42 }])).toBe(`${prefix}contracts: the contract 42 is not listed`);
  });

  it('contracts: a decoded raw transaction’s to; a contract creation and an undecodable one are refused as such', async () => {
    expect(callRefusal(contracts, 'eth_sendRawTransaction', [await signed(listed)])).toBeUndefined();
    expect(callRefusal(contracts, 'eth_sendRawTransaction', [await signed(other)])).toBe(
      `${prefix}contracts: the contract ${other} is not listed`,
    );
    expect(callRefusal(contracts, 'eth_sendRawTransaction', [await signed(undefined)])).toBe(
      `${prefix}contracts: eth_sendRawTransaction creates a contract (a transaction without 'to')`,
    );
    expect(callRefusal(contracts, 'eth_sendRawTransaction', ['0x02c0ffee'])).toBe(
      `${prefix}contracts: eth_sendRawTransaction: the raw transaction cannot be decoded`,
    );
    expect(callRefusal(contracts, 'eth_sendBundle', [{ txs: [await signed(listed), await signed(other)] }])).toContain(
      `the contract ${other} is not listed`,
    );
  });

  it('contracts: every address of eth_getLogs and eth_newFilter, one or a list; a filter without any is refused', () => {
    for (const method of ['eth_getLogs', 'eth_newFilter']) {
      expect(callRefusal(contracts, method, [{ address: listed, fromBlock: '0x0' }])).toBeUndefined();
      expect(callRefusal(contracts, method, [{ address: [listed] }])).toBeUndefined();
      expect(callRefusal(contracts, method, [{ address: [listed, other] }])).toBe(
        `${prefix}contracts: the contract ${other} is not listed`,
      );
      expect(callRefusal(contracts, method, [{ fromBlock: '0x0' }])).toBe(
        `${prefix}contracts: ${method} must name its addresses`,
      );
      expect(callRefusal(contracts, method, [{ address: [] }])).toBe(`${prefix}contracts: ${method} must name its addresses`);
    }
  });

  it('contracts: the accounts a state override changes must be listed too', () => {
    const override = (address: string) => ({ [address]: { code: '0x00' } });
    expect(callRefusal(contracts, 'eth_call', [{ to: listed }, 'latest', override(listed)])).toBeUndefined();
    expect(callRefusal(contracts, 'eth_call', [{ to: listed }, 'latest', override(other)])).toContain(
      `the contract ${other} is not listed`,
    );
    expect(callRefusal(contracts, 'eth_estimateGas', [{ to: listed }, 'latest', override(other)])).toContain('is not listed');
    expect(callRefusal(contracts, 'debug_traceCall', [{ to: listed }, 'latest', { stateOverrides: override(other) }])).toContain(
      'is not listed',
    );
    const simulate = { blockStateCalls: [{ calls: [{ to: listed }] }, { stateOverrides: override(other), calls: [] }] };
    expect(callRefusal(contracts, 'eth_simulateV1', [simulate, 'latest'])).toContain(`the contract ${other} is not listed`);
  });

  it('contracts: eth_simulateV1, eth_callMany and trace_callMany check every call', () => {
    const simulate = (to: string) => [{ blockStateCalls: [{ calls: [{ to: listed }, { to }] }] }, 'latest'];
    expect(callRefusal(contracts, 'eth_simulateV1', simulate(listed))).toBeUndefined();
    expect(callRefusal(contracts, 'eth_simulateV1', simulate(other))).toContain(`the contract ${other} is not listed`);
    expect(callRefusal(contracts, 'eth_simulateV1', [{ blockStateCalls: [] }])).toContain(
      'eth_simulateV1 must name its contracts',
    );
    expect(callRefusal(contracts, 'eth_callMany', [[{ transactions: [{ to: other }] }]])).toContain('is not listed');
    expect(callRefusal(contracts, 'trace_callMany', [[[{ to: other }, ['trace']]]])).toContain('is not listed');
  });

  it('contracts: eth_getCode, eth_getStorageAt, eth_getProof name theirs; logs subscriptions must; Alchemy’s methods', () => {
    expect(callRefusal(contracts, 'eth_getCode', [listed, 'latest'])).toBeUndefined();
    expect(callRefusal(contracts, 'eth_getStorageAt', [other, '0x0', 'latest'])).toContain('is not listed');
    expect(callRefusal(contracts, 'eth_getProof', [other, [], 'latest'])).toContain('is not listed');
    expect(callRefusal(contracts, 'eth_subscribe', ['newHeads'])).toBeUndefined();
    expect(callRefusal(contracts, 'eth_subscribe', ['logs', { address: listed }])).toBeUndefined();
    expect(callRefusal(contracts, 'eth_subscribe', ['logs', {}])).toBe(
      `${prefix}contracts: a logs subscription must name its addresses`,
    );
    expect(callRefusal(contracts, 'alchemy_getTokenBalances', [other, [listed]])).toBeUndefined();
    expect(callRefusal(contracts, 'alchemy_getTokenBalances', [other, 'erc20'])).toContain('must name its contracts');
    expect(callRefusal(contracts, 'alchemy_getTokenMetadata', [other])).toContain('is not listed');
    const transfers = (filter: object) => callRefusal(contracts, 'alchemy_getAssetTransfers', [filter]);
    expect(transfers({ category: ['external'] })).toBeUndefined();
    expect(transfers({ category: ['erc20'] })).toContain('must name its contractAddresses');
    expect(transfers({ category: ['erc20'], contractAddresses: [listed] })).toBeUndefined();
  });

  it('calls that touch no contract pass a contract-restricted key; a method not known here cannot be checked: refused', () => {
    expect(callRefusal(contracts, 'eth_blockNumber', [])).toBeUndefined();
    expect(callRefusal(contracts, 'eth_simulateV2', [{ calls: [{ to: other }] }])).toBe(
      `${prefix}contracts: the method 'eth_simulateV2' cannot be checked against the list`,
    );
    expect(callRefusal(contracts, 'anvil_setCode', [other, '0x00'])).toContain('cannot be checked');
    expect(callRefusal({ methods: ['eth_simulateV2'] }, 'eth_simulateV2', [])).toBeUndefined();
    expect(callRefusal(contracts, 'eth_getBalance', [other, 'latest'])).toBeUndefined();
    expect(callRefusal(contracts, 'eth_getTransactionReceipt', [`0x${'00'.repeat(32)}`])).toBeUndefined();
  });

  it('methods and contracts together: the method is checked first', () => {
    const both = { methods: ['eth_call'], contracts: [listed] };
    expect(callRefusal(both, 'eth_getLogs', [{}])).toContain('restrictions.methods');
    expect(callRefusal(both, 'eth_call', [{ to: other }])).toContain('restrictions.contracts');
  });

  it('docs/keys-calls.md names every method the contracts list covers', () => {
    const page = readFileSync(new URL('../../docs/keys-calls.md', import.meta.url), 'utf8');
    for (const method of contractNamingMethods) expect(page, method).toContain(`\`${method}\``);
  });

  it('a dashboard session is not a key: its restrictions (none in practice) are not applied; a key without any passes', () => {
    const principal = { restrictions: { methods: ['eth_call'] } } as unknown as Principal;
    expect(principalCallRefusal(principal, 'eth_gasPrice', [])).toContain("the method 'eth_gasPrice' is not listed");
    expect(principalCallRefusal({ ...principal, session: { userId: 'u1' } }, 'eth_gasPrice', [])).toBeUndefined();
    expect(principalCallRefusal({} as Principal, 'eth_gasPrice', [])).toBeUndefined();
  });
});
