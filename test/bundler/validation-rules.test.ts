import { type Address, createWalletClient, getAddress, type Hex, http, keccak256, parseEther } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changedCode, visitedCodeHashes } from '../../src/bundler/code-hashes.ts';
import { findRuleViolation } from '../../src/bundler/validation-rules.ts';
import { checkStepTrace } from '../../src/bundler/validation-step-trace.ts';
import { entryPointV07Abi } from '../../src/erc4337/contracts/abis.ts';
import { eventually } from '../support/cli.ts';
import { type BundlerChain, installAccount, startBundlerChain } from './start-bundler.ts';
import { bareUserOperation } from './support.ts';

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
      rule: 'OP-011',
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
      rule: 'OP-012',
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
      rule: 'OP-031',
    });
  });

  describe('on a real anvil', () => {
    let { chain, bundler } = {} as BundlerChain;
    beforeAll(async () => {
      ({ chain, bundler } = await startBundlerChain({ accounts: [{ address: sender, code: timestampAccountCode }] }));
    }, 120_000);
    afterAll(async () => {
      await chain?.service.stop();
    });

    it('refuses an op whose account reads TIMESTAMP in validation (-32502), and queues nothing', async () => {
      const base = bareUserOperation(sender);
      const estimate = await bundler('eth_estimateUserOperationGas', [base, entryPoint07Address]);
      expect(estimate.error).toBeUndefined();
      const sent = await bundler('eth_sendUserOperation', [{ ...base, ...estimate.result }, entryPoint07Address]);
      expect(sent.error).toMatchObject({ code: -32502, data: { entity: 'account', opcode: 'TIMESTAMP' } });
      expect(sent.error?.message).toMatch(/ERC-7562 OP-011: account uses banned opcode: TIMESTAMP/);
      const queued = await chain.service.database.db.selectFrom('user_operations').select('hash').execute();
      expect(queued).toEqual([]);
    });

    /** An account whose validation STATICCALLs `reader` (which reads one slot), then pays its prefund and returns 0. */
    const readingAccount = (reader: Address): Hex => `0x602060006000600073${reader.slice(2)}5afa50${payAndReturn}`;
    const payAndReturn = '6000600060006000604435335af150600060005260206000f3';
    /** Reads slot 5 of its own storage: not associated with any sender. */
    const unassociatedReader: Hex = '0x60055460005260206000f3';
    /** Reads balances[caller] of a mapping at slot 0 (keccak(caller . 0)): storage associated with the sender. */
    const associatedReader: Hex = '0x33600052600060205260406000205460005260206000f3';
    const send = async (account: Address, code: Hex) => {
      await installAccount(chain, account, code);
      const base = bareUserOperation(account);
      const estimate = await bundler('eth_estimateUserOperationGas', [base, entryPoint07Address]);
      expect(estimate.error, JSON.stringify(estimate.error)).toBeUndefined();
      return bundler('eth_sendUserOperation', [{ ...base, ...estimate.result }, entryPoint07Address]);
    };
    const queuedFor = async (account: Address) =>
      chain.service.database.db.selectFrom('user_operations').select('hash').where('sender', '=', account).execute();

    it('refuses an op whose validation reads storage of another contract not associated with the sender (STO-021)', async () => {
      const reader = '0x00000000000000000000000000000000000057a1' as Address;
      const account = '0x000000000000000000000000000000000000a771' as Address;
      await chain.anvilRpc('anvil_setCode', [reader, unassociatedReader]);
      const sent = await send(account, readingAccount(reader));
      expect(sent.error).toMatchObject({ code: -32502, data: { entity: 'account', opcode: 'SLOAD', rule: 'STO-021' } });
      expect(sent.error?.message).toMatch(
        /account's validation reads slot 0x5 of 0x0+57a1, which is not associated with the sender/,
      );
      expect(await queuedFor(account)).toEqual([]);
    });

    it('refuses an op whose validation calls code that runs an unassigned opcode, though the account goes on (OP-013)', async () => {
      const helper = '0x00000000000000000000000000000000000057a3' as Address;
      const account = '0x000000000000000000000000000000000000a774' as Address;
      await chain.anvilRpc('anvil_setCode', [helper, '0x0c']);
      // As readingAccount, with 0x1000 gas for the call instead of GAS, so the halted frame burns little.
      const sent = await send(account, `0x602060006000600073${helper.slice(2)}611000fa50${payAndReturn}`);
      expect(sent.error).toMatchObject({ code: -32502, data: { entity: 'account', opcode: 'UNASSIGNED', rule: 'OP-013' } });
      expect(sent.error?.message).toMatch(/validation runs an unassigned opcode in the code at 0x/);
      expect(await queuedFor(account)).toEqual([]);
    });

    it("accepts an op whose validation reads the sender's own entry of another contract's mapping (associated storage)", async () => {
      const reader = '0x00000000000000000000000000000000000057a2' as Address;
      const account = '0x000000000000000000000000000000000000a772' as Address;
      await chain.anvilRpc('anvil_setCode', [reader, associatedReader]);
      const sent = await send(account, readingAccount(reader));
      expect(sent.error).toBeUndefined();
      expect(await queuedFor(account)).toHaveLength(1);
    });

    describe('rules between ops in the mempool', () => {
      /** Returns 32 zero bytes to validateUserOp (an account), and an empty context with 0 to anything else (a paymaster). */
      const accountAndPaymaster: Hex = '0x60003560e01c6319822f7c14601957604060005260606000f35b600060005260206000f3';
      /** An account that reads balances[caller] of its own mapping at slot 0, then returns 0 (its EntryPoint deposit pays). */
      const associatedReadingAccount: Hex = '0x33600052600060205260406000205450600060005260206000f3';
      const depositFor = async (address: Address) => {
        const wallet = createWalletClient({
          account: privateKeyToAccount('0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6'),
          chain: foundry,
          transport: http(chain.service.anvil.url),
        });
        const tx = await wallet.writeContract({
          address: entryPoint07Address,
          abi: entryPointV07Abi,
          functionName: 'depositTo',
          args: [address],
          value: parseEther('1'),
        });
        await chain.publicClient.waitForTransactionReceipt({ hash: tx });
      };
      beforeAll(async () => {
        expect((await bundler('debug_bundler_setBundlingMode', ['manual'])).error).toBeUndefined();
      });
      afterAll(async () => {
        await bundler('debug_bundler_clearState', []);
        await bundler('debug_bundler_setBundlingMode', ['auto']);
      });

      it("refuses an op whose paymaster is another pending op's sender (STO-040)", async () => {
        const dual = '0x000000000000000000000000000000000000d0a1' as Address;
        await depositFor(dual);
        const first = await send(dual, accountAndPaymaster);
        expect(first.error).toBeUndefined();
        const payer = '0x000000000000000000000000000000000000d0a2' as Address;
        await chain.anvilRpc('anvil_setCode', [payer, `0x${payAndReturn}`]);
        const op = {
          sender: payer,
          nonce: '0x0',
          callData: '0x',
          signature: '0x',
          maxFeePerGas: '0x77359400',
          maxPriorityFeePerGas: '0x3b9aca00',
          paymaster: dual,
          paymasterData: '0x',
          paymasterVerificationGasLimit: '0x186a0',
          paymasterPostOpGasLimit: '0x0',
        };
        const estimate = await bundler('eth_estimateUserOperationGas', [op, entryPoint07Address]);
        expect(estimate.error, JSON.stringify(estimate.error)).toBeUndefined();
        const sent = await bundler('eth_sendUserOperation', [{ ...op, ...estimate.result }, entryPoint07Address]);
        expect(sent.error, JSON.stringify(sent.error)).toMatchObject({ code: -32502, data: { rule: 'STO-040' } });
        expect(sent.error?.message).toMatch(
          /the paymaster 0x0+d0a1 is used as a sender entity in another UserOperation currently in mempool/,
        );
        expect(await queuedFor(payer)).toEqual([]);
      });

      it('drops a pending op once the code its validation ran has changed (COD-010), after the next block', async () => {
        const helper = '0x000000000000000000000000000000000000d0c2' as Address;
        const account = '0x000000000000000000000000000000000000d0c1' as Address;
        const returnsZero: Hex = '0x600060005260206000f3';
        await chain.anvilRpc('anvil_setCode', [helper, returnsZero]);
        const sent = await send(account, readingAccount(helper));
        expect(sent.error, JSON.stringify(sent.error)).toBeUndefined();
        const [row] = await chain.service.database.db
          .selectFrom('user_operations')
          .select(['hash', 'code_hashes'])
          .where('sender', '=', getAddress(account))
          .execute();
        expect(row?.code_hashes).toMatchObject({ [helper]: keccak256(returnsZero) });
        // An op is looked at again once it has waited a block (1 s here): then a block with the new code.
        await new Promise((resolve) => setTimeout(resolve, 1_200));
        await chain.anvilRpc('anvil_setCode', [helper, '0x600160005260206000f3']);
        await chain.anvilRpc('evm_mine');
        const dropped = await eventually(
          async () => {
            const now = await chain.service.database.db
              .selectFrom('user_operations')
              .select(['status', 'reason'])
              .where('hash', '=', row!.hash)
              .executeTakeFirstOrThrow();
            return now.status === 'failed' ? now : undefined;
          },
          { timeoutMs: 15_000, what: 'the op dropped after its code changed' },
        );
        expect(dropped.reason).toBe(`ERC-7562 COD-010: the code at ${helper} changed since the operation was validated`);
      });

      it('keeps a pending op whose code is unchanged across blocks', async () => {
        const helper = '0x000000000000000000000000000000000000d0d2' as Address;
        const account = '0x000000000000000000000000000000000000d0d1' as Address;
        await chain.anvilRpc('anvil_setCode', [helper, '0x600060005260206000f3']);
        const sent = await send(account, readingAccount(helper));
        expect(sent.error, JSON.stringify(sent.error)).toBeUndefined();
        await new Promise((resolve) => setTimeout(resolve, 1_200));
        await chain.anvilRpc('evm_mine');
        await chain.anvilRpc('evm_mine');
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        const rows = await chain.service.database.db
          .selectFrom('user_operations')
          .select(['status', 'reason'])
          .where('sender', '=', getAddress(account))
          .execute();
        expect(rows).toEqual([{ status: 'pending', reason: null }]);
      });

      it("takes an op whose validation touches a pending op's sender's storage (STO-041), and bundles it after that op, not beside it", async () => {
        const pending = '0x000000000000000000000000000000000000d0b1' as Address;
        await depositFor(pending);
        await chain.anvilRpc('anvil_setCode', [pending, associatedReadingAccount]);
        const first = await send(pending, associatedReadingAccount);
        expect(first.error).toBeUndefined();
        const reader = '0x000000000000000000000000000000000000d0b2' as Address;
        const second = await send(reader, readingAccount(pending));
        expect(second.error, JSON.stringify(second.error)).toBeUndefined();
        const statusOf = async (hash: unknown) =>
          await chain.service.database.db
            .selectFrom('user_operations')
            .select(['status', 'storage_owners', 'block_number'])
            .where('hash', '=', String(hash))
            .executeTakeFirstOrThrow();
        expect((await statusOf(second.result)).storage_owners).toEqual([pending]);
        // One bundle: the first op goes, the reader waits in the mempool (the first could change what it read).
        expect((await bundler('debug_bundler_sendBundleNow', [])).error).toBeUndefined();
        const firstLanded = await statusOf(first.result);
        expect(firstLanded.status).toBe('included');
        expect((await statusOf(second.result)).status).toBe('pending');
        // The next bundle takes it, in a later block.
        expect((await bundler('debug_bundler_sendBundleNow', [])).error).toBeUndefined();
        const secondLanded = await statusOf(second.result);
        expect(secondLanded.status).toBe('included');
        expect(BigInt(secondLanded.block_number!)).toBeGreaterThan(BigInt(firstLanded.block_number!));
      });
    });

    it('accepts an account whose code holds a TIMESTAMP byte its validation can never reach', async () => {
      const account = '0x000000000000000000000000000000000000a773' as Address;
      // Straight code that returns, then data: INVALID, TIMESTAMP (no JUMPDEST leads there).
      const sent = await send(account, `0x${payAndReturn}fe42`);
      expect(sent.error).toBeUndefined();
      expect(await queuedFor(account)).toHaveLength(1);
    });
  });
});

describe('the storage rules from a step trace', () => {
  const entities = {
    entryPoint: '0x0000000071727de22e5e9d8baf0edac6f37da032',
    sender: '0x000000000000000000000000000000000000a770',
    paymaster: '0x000000000000000000000000000000000000beef',
    deploying: false,
    staked: { sender: false, factory: false, paymaster: false },
  };
  const token = '0x000000000000000000000000000000000000c0de';
  const senderKey = `0x${entities.sender.slice(2).padStart(64, '0')}${'0'.repeat(64)}` as Hex;
  const balanceSlot = BigInt(keccak256(senderKey)).toString(16);
  const trace = (storage: [string, string, string, number, number][], keccak: string[] = []) => ({
    ops: [],
    storage,
    keccak,
    noCode: [],
  });
  it("allows the sender's entry of a mapping (and a few slots past it), not another slot", () => {
    expect(checkStepTrace(trace([[entities.sender, token, balanceSlot, 1, 0]], [senderKey]), entities)).toBeUndefined();
    const next = (BigInt(`0x${balanceSlot}`) + 3n).toString(16);
    expect(checkStepTrace(trace([[entities.sender, token, next, 0, 0]], [senderKey]), entities)).toBeUndefined();
    expect(checkStepTrace(trace([[entities.sender, token, '5', 0, 0]], [senderKey]), entities)).toMatchObject({
      rule: 'STO-021',
    });
  });
  it('lets a staked paymaster read any non-entity storage and use its own, and an unstaked one neither', () => {
    const reads: [string, string, string, number, number][] = [
      [entities.paymaster, token, '5', 0, 0],
      [entities.paymaster, entities.paymaster, '1', 1, 0],
    ];
    expect(checkStepTrace(trace(reads), entities)).toMatchObject({ entity: 'paymaster', rule: 'STO-021' });
    expect(checkStepTrace(trace([reads[1]!]), entities)).toMatchObject({ entity: 'paymaster', rule: 'STO-031' });
    expect(
      checkStepTrace(trace(reads), { ...entities, staked: { sender: false, factory: false, paymaster: true } }),
    ).toBeUndefined();
  });
  it('treats transient storage like storage (OP-070) and allows BALANCE only to staked entities (OP-080)', () => {
    expect(checkStepTrace(trace([[entities.sender, token, '5', 1, 1]]), entities)).toMatchObject({ opcode: 'TSTORE' });
    const balance = {
      ops: [[entities.paymaster, 'BALANCE', '']] as [string, string, string][],
      storage: [],
      keccak: [],
      noCode: [],
    };
    expect(checkStepTrace(balance, entities)).toMatchObject({ rule: 'OP-080' });
    expect(checkStepTrace(balance, { ...entities, staked: { sender: false, factory: false, paymaster: true } })).toBeUndefined();
  });
});

describe('the code hashes of a validation (COD-010)', () => {
  const entryPoint = '0x0000000071727de22e5e9d8baf0edac6f37da032';
  const account = '0x000000000000000000000000000000000000a770';
  const library = '0x000000000000000000000000000000000000c0de';
  const created = '0x000000000000000000000000000000000000c4ea';
  const tree = {
    type: 'CALL',
    from: '0x0000000000000000000000000000000000000000',
    to: entryPoint,
    calls: [
      {
        type: 'CALL',
        from: entryPoint,
        to: account,
        calls: [
          { type: 'DELEGATECALL', from: account, to: library },
          { type: 'STATICCALL', from: account, to: '0x0000000000000000000000000000000000000001' },
          { type: 'DELEGATECALL', from: account, to: library },
        ],
      },
      { type: 'CREATE2', from: entryPoint, to: created },
    ],
  };
  const prestate = { [entryPoint]: { code: '0x6001' }, [account]: { code: '0x6002' }, [library]: { code: '0x6003' } };

  it('hashes each address whose code ran once, leaving out overridden code and addresses without code', () => {
    expect(visitedCodeHashes(tree as never, prestate, [entryPoint])).toEqual({
      [account]: keccak256('0x6002'),
      [library]: keccak256('0x6003'),
    });
  });
  it('names the first address whose code hash changed', () => {
    const validated = { [account]: keccak256('0x6002'), [library]: keccak256('0x6003') };
    expect(changedCode(validated, new Map(Object.entries(validated) as [string, Hex][]))).toBeUndefined();
    expect(
      changedCode(
        validated,
        new Map([
          [account, keccak256('0x6002')],
          [library, keccak256('0x6004')],
        ]),
      ),
    ).toBe(library);
    expect(changedCode(validated, new Map([[account, keccak256('0x6002')]]))).toBe(library);
  });
});
