import { type Address, type Hex, type Log, pad, toEventSelector } from 'viem';
import { describe, expect, it } from 'vitest';
import { logsOfUserOperation } from '../../src/bundler/user-operation-receipt.ts';

const entryPoint = '0x0000000071727De22E5E9d8BAf0edAc6f37da032' as Address;
const token = '0x00000000000000000000000000000000000070c0' as Address;
const hashOf = (n: number) => pad(`0x${n.toString(16)}`) as Hex;
const topics = {
  userOperationEvent: toEventSelector('UserOperationEvent(bytes32,address,address,uint256,bool,uint256,uint256)'),
  beforeExecution: toEventSelector('BeforeExecution()'),
  revertReason: toEventSelector('UserOperationRevertReason(bytes32,address,uint256,bytes)'),
  postOpRevertReason: toEventSelector('PostOpRevertReason(bytes32,address,uint256,bytes)'),
  aggregatorChanged: toEventSelector('SignatureAggregatorChanged(address)'),
  accountDeployed: toEventSelector('AccountDeployed(bytes32,address,address,address)'),
  deposited: toEventSelector('Deposited(address,uint256)'),
  transfer: toEventSelector('Transfer(address,address,uint256)'),
};

/** A bundle's logs, each named so that a slice of them reads as a list of names. */
function bundle(entries: [name: string, address: Address, topic0: Hex, topic1?: Hex][]) {
  const logs = entries.map(
    ([, address, topic0, topic1], index) =>
      ({ address, topics: topic1 === undefined ? [topic0] : [topic0, topic1], data: '0x', logIndex: index }) as unknown as Log,
  );
  const names = new Map(logs.map((log, index) => [log, entries[index]![0]]));
  return { receipt: { logs }, namesOf: (found: Log[]) => found.map((log) => names.get(log)) };
}

describe('the logs of one op in its bundle', () => {
  const { receipt, namesOf } = bundle([
    ['deployed-1', entryPoint, topics.accountDeployed, hashOf(1)],
    ['prefund-1', entryPoint, topics.deposited],
    ['validation-log-2', token, topics.transfer],
    ['before', entryPoint, topics.beforeExecution],
    ['transfer-1', token, topics.transfer],
    ['event-1', entryPoint, topics.userOperationEvent, hashOf(1)],
    ['revert-2', entryPoint, topics.revertReason, hashOf(2)],
    ['event-2', entryPoint, topics.userOperationEvent, hashOf(2)],
    ['own-deposit-3', entryPoint, topics.deposited],
    ['transfer-3', token, topics.transfer],
    ['postop-revert-3', entryPoint, topics.postOpRevertReason, hashOf(3)],
    ['event-3', entryPoint, topics.userOperationEvent, hashOf(3)],
    ['event-4', entryPoint, topics.userOperationEvent, hashOf(4)],
  ]);

  it('the first op: from BeforeExecution on, not the validation phase', () => {
    expect(namesOf(logsOfUserOperation(receipt, entryPoint, hashOf(1)))).toEqual(['transfer-1']);
  });
  it('a reverted op: nothing (the EntryPoint’s revert report is not its log)', () => {
    expect(namesOf(logsOfUserOperation(receipt, entryPoint, hashOf(2)))).toEqual([]);
  });
  it('an op that called the EntryPoint itself keeps that log; the postOp revert report is left out', () => {
    expect(namesOf(logsOfUserOperation(receipt, entryPoint, hashOf(3)))).toEqual(['own-deposit-3', 'transfer-3']);
  });
  it('an op right after another has none; an op not in the bundle has none', () => {
    expect(logsOfUserOperation(receipt, entryPoint, hashOf(4))).toEqual([]);
    expect(logsOfUserOperation(receipt, entryPoint, hashOf(5))).toEqual([]);
  });
  it('the same events from another contract do not frame anything; the EntryPoint’s address is matched in any case', () => {
    const other = bundle([
      ['before', entryPoint, topics.beforeExecution],
      ['fake-event', token, topics.userOperationEvent, hashOf(9)],
      ['aggregator', entryPoint, topics.aggregatorChanged],
      ['transfer-1', token, topics.transfer],
      ['event-1', entryPoint.toLowerCase() as Address, topics.userOperationEvent, hashOf(1)],
    ]);
    expect(other.namesOf(logsOfUserOperation(other.receipt, entryPoint, hashOf(1)))).toEqual(['fake-event', 'transfer-1']);
  });
});
