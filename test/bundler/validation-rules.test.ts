import { type Address, type Hex, parseEther } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { findRuleViolation } from '../../src/bundler/validation-rules.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';

/**
 * An account whose validateUserOp reads TIMESTAMP (banned by ERC-7562), pays its prefund to the
 * caller, and returns 0 (valid) for any call: TIMESTAMP POP; CALL(gas, caller, calldata[0x44], 0, 0, 0, 0)
 * POP; return 0.
 */
const timestampAccountCode: Hex = '0x42506000600060006000604435335af150600060005260206000f3';
const sender = '0x000000000000000000000000000000000000a77e' as Address;

describe('ERC-7562 validation rules (safe mode)', () => {
  it('finds banned opcodes by entity, and allows GAS before a call and one CREATE2 by the factory', () => {
    // A struct log's stack lists the top last: a CALL's gas, then its target.
    expect(
      findRuleViolation(
        [
          { op: 'CALL', depth: 1, stack: [sender, '0x5208'] },
          { op: 'TIMESTAMP', depth: 2 },
        ],
        { sender },
      ),
    ).toEqual({
      entity: 'account',
      opcode: 'TIMESTAMP',
    });
    expect(findRuleViolation([{ op: 'NUMBER', depth: 1 }], { sender })).toBeUndefined();
    expect(
      findRuleViolation(
        [
          { op: 'CALL', depth: 1, stack: [sender, '0x1'] },
          { op: 'GAS', depth: 2 },
          { op: 'STATICCALL', depth: 2 },
        ],
        { sender },
      ),
    ).toBeUndefined();
    expect(
      findRuleViolation(
        [
          { op: 'CALL', depth: 1, stack: [sender, '0x1'] },
          { op: 'GAS', depth: 2 },
          { op: 'POP', depth: 2 },
        ],
        { sender },
      ),
    ).toEqual({
      entity: 'account',
      opcode: 'GAS',
    });
    const creator = '0x00000000000000000000000000000000000c4ea7';
    const viaFactory = [
      { op: 'CALL', depth: 1, stack: [creator, '0x1'] },
      { op: 'CALL', depth: 2, stack: ['0xfac', '0x1'] },
      { op: 'CREATE2', depth: 3 },
    ];
    expect(findRuleViolation(viaFactory, { sender })).toBeUndefined();
    expect(findRuleViolation([...viaFactory, { op: 'CREATE2', depth: 3 }], { sender })).toEqual({
      entity: 'factory',
      opcode: 'CREATE2',
    });
  });

  describe('on a real anvil', () => {
    let chain: IndexedChain;
    let key: string;
    beforeAll(async () => {
      chain = await startIndexedChain({
        settings: { bundler_keys: devnetExecutorKeys[0] },
        chainSettings: { bundler: { enabled: true } },
      });
      await installErc4337Contracts(chain.service.anvil.url);
      await chain.anvilRpc('anvil_setCode', [sender, timestampAccountCode]);
      await chain.anvilRpc('anvil_setBalance', [sender, `0x${parseEther('1').toString(16)}`]);
      key = (await chain.service.createKey()).key;
    }, 120_000);
    afterAll(async () => {
      await chain?.service.stop();
    });

    const bundler = async (method: string, params: unknown[]) => {
      const response = await fetch(`${chain.service.url}/v1/bundler/ethereum/devnet`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        signal: AbortSignal.timeout(10_000),
      });
      return (await response.json()) as {
        result?: Record<string, Hex>;
        error?: { code: number; message: string; data?: unknown };
      };
    };

    it('refuses an op whose account reads TIMESTAMP in validation (-32502), and queues nothing', async () => {
      const base = {
        sender,
        nonce: '0x0',
        callData: '0x',
        signature: '0x',
        maxFeePerGas: '0x77359400',
        maxPriorityFeePerGas: '0x3b9aca00',
      };
      const estimate = await bundler('eth_estimateUserOperationGas', [base, entryPoint07Address]);
      expect(estimate.error).toBeUndefined();
      const sent = await bundler('eth_sendUserOperation', [{ ...base, ...estimate.result }, entryPoint07Address]);
      expect(sent.error).toMatchObject({ code: -32502, data: { entity: 'account', opcode: 'TIMESTAMP' } });
      expect(sent.error?.message).toMatch(/account's validation uses TIMESTAMP/);
      const queued = await chain.service.database.db.selectFrom('user_operations').select('hash').execute();
      expect(queued).toEqual([]);
    });
  });
});
