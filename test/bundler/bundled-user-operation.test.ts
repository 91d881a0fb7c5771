import { encodeFunctionData, type Hex } from 'viem';
import { toPackedUserOperation, type UserOperation } from 'viem/account-abstraction';
import { describe, expect, it } from 'vitest';
import { bundledUserOperations } from '../../src/bundler/bundled-user-operation.ts';
import { parseUserOperation, toRpcUserOperation } from '../../src/bundler/user-operation.ts';
import { entryPointV06Abi, entryPointV07Abi, entryPointV08Abi } from '../../src/erc4337/contracts/abis.ts';

const beneficiary = '0x00000000000000000000000000000000000000be';

/** The fields every version has, each a distinct value (a field read from the wrong place shows). */
const commonFields = {
  sender: '0x1111111111111111111111111111111111111111',
  callData: '0xb61d27f6',
  callGasLimit: '0x186a0',
  verificationGasLimit: '0x30d40',
  preVerificationGas: '0xc350',
  maxFeePerGas: '0x77359400',
  maxPriorityFeePerGas: '0x3b9aca00',
  signature: '0x1234',
};

/** A v0.7 op with every field set, as a client sends it. */
const fullV07 = (nonce: number) => ({
  ...commonFields,
  nonce: `0x${nonce.toString(16)}`,
  factory: '0x2222222222222222222222222222222222222222',
  factoryData: '0xdeadbeef',
  paymaster: '0x3333333333333333333333333333333333333333',
  paymasterVerificationGasLimit: '0x11170',
  paymasterPostOpGasLimit: '0x1d4c0',
  paymasterData: '0xcafe',
});

/** What eth_getUserOperationByHash answers for an op this bundler admitted: its parsed form, back in JSON-RPC form. */
const asAdmitted = (version: '0.6' | '0.7' | '0.8', rpc: Record<string, unknown>) =>
  toRpcUserOperation(parseUserOperation(version, rpc));

describe('bundledUserOperations: the ops of a bundle transaction, read back from its input', () => {
  it('v0.7 and v0.8 handleOps: packed fields split back into the JSON-RPC form the op was admitted in', () => {
    const plain = { ...fullV07(7) } as Record<string, string>;
    for (const name of [
      'factory',
      'factoryData',
      'paymaster',
      'paymasterVerificationGasLimit',
      'paymasterPostOpGasLimit',
      'paymasterData',
    ])
      delete plain[name];
    const ops = [fullV07(1), plain];
    for (const [version, abi] of [
      ['0.7', entryPointV07Abi],
      ['0.8', entryPointV08Abi],
    ] as const) {
      const packed = ops.map((op) => toPackedUserOperation(parseUserOperation(version, op) as UserOperation<'0.7'>));
      const input = encodeFunctionData({ abi, functionName: 'handleOps', args: [packed, beneficiary] });
      expect(bundledUserOperations(version, input)).toEqual(ops.map((op) => asAdmitted(version, op)));
    }
  });

  it('handleAggregatedOps: every aggregator group in turn, in order', () => {
    const packed = [1, 2, 3].map((nonce) =>
      toPackedUserOperation(parseUserOperation('0.7', fullV07(nonce)) as UserOperation<'0.7'>),
    );
    const input = encodeFunctionData({
      abi: entryPointV07Abi,
      functionName: 'handleAggregatedOps',
      args: [
        [
          { userOps: packed.slice(0, 2), aggregator: '0x4444444444444444444444444444444444444444', signature: '0x' },
          { userOps: packed.slice(2), aggregator: '0x5555555555555555555555555555555555555555', signature: '0x' },
        ],
        beneficiary,
      ],
    });
    expect(bundledUserOperations('0.7', input)?.map((op) => op.nonce)).toEqual(['0x1', '0x2', '0x3']);
  });

  it('v0.6 handleOps: the op as it was sent', () => {
    const rpc = {
      ...commonFields,
      nonce: '0x5',
      initCode: '0x2222222222222222222222222222222222222222deadbeef',
      paymasterAndData: '0x3333333333333333333333333333333333333333cafe',
    };
    const op = parseUserOperation('0.6', rpc) as UserOperation<'0.6'> & { initCode: Hex; paymasterAndData: Hex };
    const input = encodeFunctionData({ abi: entryPointV06Abi, functionName: 'handleOps', args: [[op], beneficiary] });
    expect(bundledUserOperations('0.6', input)).toEqual([asAdmitted('0.6', rpc)]);
  });

  it('an input that is not handleOps (a bundle sent through another contract) carries none we can read', () => {
    expect(bundledUserOperations('0.7', '0xa9059cbb' as Hex)).toBeUndefined();
    const deposit = encodeFunctionData({ abi: entryPointV07Abi, functionName: 'depositTo', args: [beneficiary] });
    expect(bundledUserOperations('0.7', deposit)).toBeUndefined();
  });
});
