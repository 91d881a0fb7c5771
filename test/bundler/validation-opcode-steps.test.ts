import { type Address, type Hex, parseEther } from 'viem';
import type { UserOperation } from 'viem/account-abstraction';
import { entryPoint07Address } from 'viem/account-abstraction';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opcodeStepsAreClean } from '../../src/bundler/validation-opcode-steps.ts';
import type { RuleEntities } from '../../src/bundler/validation-rule-types.ts';
import { checkValidationRules, type TraceCall, traceValidation } from '../../src/bundler/validation-rules.ts';
import type { Devnet } from '../../src/chains/devnet.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { jsonRpc } from '../support/json-rpc.ts';

describe('the opcode-only step list (the middle pass of the ERC-7562 check)', () => {
  const steps = (...list: [string, number][]) => list.map(([op, depth]) => ({ op, depth }));

  it('clears GAS right before a call and anything in the EntryPoint’s own frame', () => {
    expect(opcodeStepsAreClean(steps(['TIMESTAMP', 1], ['GAS', 1], ['POP', 1], ['GAS', 2], ['CALL', 2], ['STOP', 3]))).toBe(true);
    expect(opcodeStepsAreClean([])).toBe(true);
  });

  it('does not clear GAS before anything but a call, a banned opcode, BALANCE or transient storage below the top frame', () => {
    expect(opcodeStepsAreClean(steps(['GAS', 2], ['SWAP1', 2]))).toBe(false);
    // GAS as a frame's last step: the next step is the caller's, not a call.
    expect(opcodeStepsAreClean(steps(['GAS', 3], ['CALL', 2]))).toBe(false);
    for (const op of ['NUMBER', 'TIMESTAMP', 'SELFBALANCE', 'BALANCE', 'TLOAD', 'TSTORE', 'CREATE', 'PREVRANDAO'])
      expect(opcodeStepsAreClean(steps(['PUSH1', 2], [op, 2])), op).toBe(false);
  });
});

describe('ERC-7562 rules on a real anvil: which passes run', () => {
  let anvil: Devnet;
  const traced: string[] = [];
  const rpc = (method: string, params: unknown[]) => jsonRpc(anvil.url, method, params);
  /** debug_traceCall on the anvil, noting which pass asked: a built-in tracer, the step tracer (JavaScript) or the struct logger. */
  const trace: TraceCall = async (call, options) => {
    const tracer = options.tracer;
    traced.push(typeof tracer !== 'string' ? 'struct logger' : tracer.length < 40 ? tracer : 'step tracer');
    return rpc('debug_traceCall', [call, 'latest', options]);
  };

  beforeAll(async () => {
    anvil = await startTestAnvil();
    await installErc4337Contracts(anvil.url);
  }, 60_000);
  afterAll(async () => {
    await anvil?.stop();
  });

  /** Pays its prefund to the caller (the EntryPoint) and returns 0 (valid): CALL(gas, caller, calldata[0x44]) POP; return 0. */
  const payAndReturn = '6000600060006000604435335af150600060005260206000f3';
  const op = (sender: Address): UserOperation<'0.7'> => ({
    sender,
    nonce: 0n,
    callData: '0x',
    callGasLimit: 50_000n,
    verificationGasLimit: 200_000n,
    preVerificationGas: 50_000n,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
    signature: '0x',
  });
  const check = async (sender: Address, code: Hex) => {
    await rpc('anvil_setCode', [sender, code]);
    await rpc('anvil_setBalance', [sender, `0x${parseEther('1').toString(16)}`]);
    traced.length = 0;
    const entities: RuleEntities = {
      entryPoint: entryPoint07Address,
      sender,
      deploying: false,
      staked: { sender: false, factory: false, paymaster: false },
    };
    const traces = traceValidation(trace, '0.7', entryPoint07Address, op(sender));
    traced.push('|'); // what was asked before this mark ran beside the call tree and the state
    return checkValidationRules(traces, entities).then(
      () => 'accepted',
      (error: Error & { data?: unknown }) => ({ message: error.message, data: error.data }),
    );
  };

  it('clears code that could reach GAS before no call, but did not, without the step tracer', async () => {
    // The validation returns before a JUMPDEST that leads to GAS POP (as an account's execute passes gasleft() on).
    const verdict = await check('0x000000000000000000000000000000000000b001', `0x${payAndReturn}5b5a5000`);
    expect(verdict).toBe('accepted');
    expect(traced).toEqual(['callTracer', 'prestateTracer', '|', 'struct logger']);
  });

  it('runs the opcode pass beside the first two tracers for an account whose last validation needed it', async () => {
    const account = '0x000000000000000000000000000000000000b004' as Address;
    expect(await check(account, `0x${payAndReturn}5b5a5000`)).toBe('accepted');
    expect(traced).toEqual(['callTracer', 'prestateTracer', '|', 'struct logger']);
    expect(await check(account, `0x${payAndReturn}5b5a5000`)).toBe('accepted');
    expect(traced).toEqual(['callTracer', 'prestateTracer', 'struct logger', '|']);
    // Its code replaced by one with nothing to decide: the pass is not needed, and not started next time.
    expect(await check(account, `0x${payAndReturn}`)).toBe('accepted');
    expect(await check(account, `0x${payAndReturn}`)).toBe('accepted');
    expect(traced).toEqual(['callTracer', 'prestateTracer', '|']);
  });

  it('sends an op whose validation did run GAS before no call on to the step tracer, which names the rule', async () => {
    const verdict = await check('0x000000000000000000000000000000000000b002', `0x5a50${payAndReturn}`);
    expect(verdict).toMatchObject({ data: { entity: 'account', opcode: 'GAS', rule: 'OP-012' } });
    expect((verdict as { message: string }).message).toMatch(/OP-012: account uses banned opcode: GAS .*followed by POP/);
    expect(traced).toEqual(['callTracer', 'prestateTracer', '|', 'struct logger', 'step tracer']);
  });

  it('clears code that holds an EXTCODEHASH its validation never ran with the opcode pass, not the step tracer', async () => {
    // After the return, a JUMPDEST leads to EXTCODEHASH of 0xdead (as an account's upgrade path reads code);
    // the simulation's own EXTCODESIZE of the sender, in the EntryPoint's call to itself, is the EntryPoint's.
    const verdict = await check('0x000000000000000000000000000000000000b005', `0x${payAndReturn}5b61dead3f5000`);
    expect(verdict).toBe('accepted');
    expect(traced).toEqual(['callTracer', 'prestateTracer', '|', 'struct logger']);
  });

  it('sends an op whose validation did read the code of an address without code on to the step tracer, which names OP-041', async () => {
    const verdict = await check('0x000000000000000000000000000000000000b006', `0x61dead3f50${payAndReturn}`);
    expect(verdict).toMatchObject({ data: { entity: 'account', rule: 'OP-041' } });
    expect(traced).toEqual(['callTracer', 'prestateTracer', '|', 'struct logger', 'step tracer']);
  });

  it("sends an op whose validation read the EntryPoint's code on to the step tracer, which names OP-054", async () => {
    const readsEntryPoint: Hex = `0x73${entryPoint07Address.slice(2).toLowerCase()}3f50${payAndReturn}`;
    const verdict = await check('0x000000000000000000000000000000000000b008', readsEntryPoint);
    expect(verdict).toMatchObject({ data: { entity: 'account', rule: 'OP-054' } });
    expect(traced).toEqual(['callTracer', 'prestateTracer', '|', 'struct logger', 'step tracer']);
  });

  it('starts the step tracer beside the first two tracers for an account whose last validation it settled, without the opcode pass', async () => {
    // Reads its own code size (EXTCODESIZE of its own address, which has code): allowed, but only the step tracer sees the target.
    const account = '0x000000000000000000000000000000000000b007' as Address;
    const readsOwnCode = `0x61b0073b50${payAndReturn}`;
    expect(await check(account, readsOwnCode)).toBe('accepted');
    expect(traced).toEqual(['callTracer', 'prestateTracer', '|', 'struct logger', 'step tracer']);
    expect(await check(account, readsOwnCode)).toBe('accepted');
    expect(traced).toEqual(['callTracer', 'prestateTracer', 'step tracer', '|']);
    // A verdict the early step trace reaches is the step tracer's: the same code reading an address without code.
    expect(await check(account, `0x61dead3f50${payAndReturn}`)).toMatchObject({ data: { entity: 'account', rule: 'OP-041' } });
    expect(traced).toEqual(['callTracer', 'prestateTracer', 'step tracer', '|']);
    // Nothing left to decide: the memory is dropped, and the next op starts no pass early.
    expect(await check(account, `0x${payAndReturn}`)).toBe('accepted');
    expect(await check(account, `0x${payAndReturn}`)).toBe('accepted');
    expect(traced).toEqual(['callTracer', 'prestateTracer', '|']);
  });

  it('leaves code with nothing to decide to the first pass alone', async () => {
    expect(await check('0x000000000000000000000000000000000000b003', `0x${payAndReturn}`)).toBe('accepted');
    expect(traced).toEqual(['callTracer', 'prestateTracer', '|']);
  });
});
