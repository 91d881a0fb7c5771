import { encodeFunctionData, parseAbi } from 'viem';
import { describe, expect, it } from 'vitest';
import { accountCallsOf } from '../../src/sponsorship/call-targets.ts';
import { type PolicyUsage, policyViolation, type SponsorFacts } from '../../src/sponsorship/policy-check.ts';
import { maxCostWei } from '../../src/sponsorship/sponsorship-cost.ts';
import { formatUsd, parseUsd, usdString, weiToPicoUsd } from '../../src/sponsorship/usd.ts';

const token = '0x000000000000000000000000000000000000c0de';
const other = '0x000000000000000000000000000000000000beef';
const sender = '0x000000000000000000000000000000000000a770' as const;
const abi = parseAbi([
  'function execute(address dest, uint256 value, bytes func)',
  'function executeBatch(address[] dest, uint256[] value, bytes[] func)',
  'function transfer(address to, uint256 amount)',
]);
const transfer = encodeFunctionData({ abi, functionName: 'transfer', args: [other, 5n] });
const noUsage: PolicyUsage = { usdPico: 0n, ops: 0, senderUsdPico: 0n, senderOps: 0, senderOpsToday: 0, opsInWindow: 0 };

describe('USD in pico-dollars', () => {
  it('prices wei exactly, rounding up, and formats with the figures a refusal shows', () => {
    expect(weiToPicoUsd(10n ** 18n, '3000')).toBe(parseUsd('3000'));
    expect(weiToPicoUsd(1n, '3000')).toBe(1n); // 3e-15 USD rounds up to one pico-dollar
    expect(formatUsd(parseUsd('4.104'))).toBe('4.10');
    expect(formatUsd(parseUsd('1.195'))).toBe('1.20');
    expect(usdString(parseUsd('0.250000'))).toBe('0.25');
  });
});

describe('the most an op can cost its paymaster', () => {
  it('is every gas limit at maxFeePerGas (v0.7), and the verification limit three times with a paymaster (v0.6)', () => {
    const gas = { preVerificationGas: 50_000n, verificationGasLimit: 100_000n, callGasLimit: 20_000n, maxFeePerGas: 2n };
    const base = { sender, nonce: 0n, callData: '0x' as const, maxPriorityFeePerGas: 1n, signature: '0x' as const, ...gas };
    expect(
      maxCostWei({ ...base, paymaster: other, paymasterVerificationGasLimit: 30_000n, paymasterPostOpGasLimit: 0n }, '0.7'),
    ).toBe(200_000n * 2n);
    expect(maxCostWei({ ...base, initCode: '0x', paymasterAndData: other }, '0.6')).toBe(370_000n * 2n);
  });
});

describe('the calls an account makes', () => {
  it('reads execute and executeBatch, and nothing else', () => {
    expect(accountCallsOf(encodeFunctionData({ abi, functionName: 'execute', args: [token, 0n, transfer] }))).toEqual([
      { to: token, selector: '0xa9059cbb' },
    ]);
    expect(
      accountCallsOf(
        encodeFunctionData({
          abi,
          functionName: 'executeBatch',
          args: [
            [token, other],
            [0n, 1n],
            [transfer, '0x'],
          ],
        }),
      ),
    ).toEqual([
      { to: token, selector: '0xa9059cbb' },
      { to: other, selector: null },
    ]);
    expect(accountCallsOf(transfer)).toBeUndefined();
  });
});

describe('a policy refusing or sponsoring an op', () => {
  const facts = (overrides: Partial<SponsorFacts> = {}): SponsorFacts => ({
    nowS: 1_800_000_000,
    sender,
    factory: null,
    costUsdPico: parseUsd('1.2'),
    calls: [{ to: token, selector: '0xa9059cbb' }],
    execution: { kind: 'traced', calls: [{ to: token, from: sender, selector: '0xa9059cbb', creates: false }] },
    usage: noUsage,
    ...overrides,
  });
  it('names the rule and the figures', () => {
    expect(policyViolation({ maxGasUsdPerSender: '5' }, facts({ usage: { ...noUsage, senderUsdPico: parseUsd('4.1') } }))).toBe(
      'max_gas_usd_per_sender exceeded: 4.10 of 5.00 used, this op up to 1.20',
    );
    expect(policyViolation({ maxGasUsdPerSender: '5' }, facts({ usage: { ...noUsage, senderUsdPico: parseUsd('3.8') } }))).toBe(
      undefined,
    );
    expect(policyViolation({ maxGasUsd: '1' }, facts())).toMatch(/^max_gas_usd exceeded: 0.00 of 1.00 used, this op up to 1.20/);
    expect(policyViolation({ maxGasUsdPerOp: '1' }, facts())).toMatch(/^max_gas_usd_per_op exceeded/);
    expect(policyViolation({ maxOps: 3 }, facts({ usage: { ...noUsage, ops: 3 } }))).toBe(
      'max_ops reached: 3 of 3 operations sponsored',
    );
    expect(policyViolation({ maxOpsPerSender: 1 }, facts({ usage: { ...noUsage, senderOps: 1 } }))).toMatch(
      /^max_ops_per_sender/,
    );
    expect(policyViolation({ maxPerUserPerDay: 2 }, facts({ usage: { ...noUsage, senderOpsToday: 2 } }))).toMatch(
      /^max_per_user_per_day reached: 2 of 2/,
    );
    expect(policyViolation({ rateLimit: { ops: 5, perSeconds: 60 } }, facts({ usage: { ...noUsage, opsInWindow: 5 } }))).toBe(
      'rate_limit reached: 5 of 5 operations in the last 60 s',
    );
  });
  it('accepts the op each rule allows: under every cap, inside the window, an allowed sender and call', () => {
    const justUnder = {
      ...noUsage,
      usdPico: parseUsd('8.7'),
      ops: 2,
      senderUsdPico: parseUsd('3.8'),
      senderOps: 2,
      senderOpsToday: 1,
      opsInWindow: 4,
    };
    expect(
      policyViolation(
        {
          maxGasUsd: '10',
          maxGasUsdPerOp: '1.2',
          maxGasUsdPerSender: '5',
          maxOps: 3,
          maxOpsPerSender: 3,
          maxPerUserPerDay: 2,
          rateLimit: { ops: 5, perSeconds: 60 },
          allowedContracts: [token],
          allowedMethods: ['0xa9059cbb'],
          allowedSenders: [sender],
          blockedSenders: [other],
          startTime: 1_700_000_000,
          endTime: 1_900_000_000,
        },
        facts({ usage: justUnder }),
      ),
    ).toBeUndefined();
  });

  it('checks senders, contracts, methods and the time window', () => {
    expect(policyViolation({ blockedSenders: [sender] }, facts())).toMatch(/^blocked_senders/);
    expect(policyViolation({ allowedSenders: [other] }, facts())).toMatch(/^allowed_senders/);
    expect(policyViolation({ allowedSenders: [sender] }, facts())).toBeUndefined();
    expect(policyViolation({ allowedContracts: [other] }, facts())).toMatch(/^allowed_contracts: the op calls 0x0+c0de/);
    expect(policyViolation({ allowedContracts: [token], allowedMethods: ['0xa9059cbb'] }, facts())).toBeUndefined();
    expect(policyViolation({ allowedMethods: ['0x095ea7b3'] }, facts())).toMatch(/^allowed_methods: the op calls 0xa9059cbb/);
    // callData that is no execute the service reads: the traced execution alone decides.
    expect(policyViolation({ allowedContracts: [token] }, facts({ calls: undefined }))).toBeUndefined();
    expect(policyViolation({ startTime: 1_900_000_000 }, facts())).toMatch(/^start_time not reached/);
    expect(policyViolation({ endTime: 1_700_000_000 }, facts())).toMatch(/^end_time passed/);
  });
});
