import { encodeFunctionData, parseAbi } from 'viem';
import { entryPoint07Address, formatUserOperationRequest, type UserOperation } from 'viem/account-abstraction';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import type { Network } from '../../src/chains/registry.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { installDevnetPaymasters } from '../../src/paymaster/install-devnet-paymasters.ts';
import { paymasterSetupsOf } from '../../src/paymaster/paymaster-setup.ts';
import { devnetSponsorKey } from '../../src/paymaster/sponsor-key.ts';
import { bundlerUrlOf, callBundler } from '../bundler/support.ts';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';
import { devnetPaymasters, newEmptyAccount } from '../paymaster/support.ts';

const gwei = 1_000_000_000n;
const simpleAccountAbi = parseAbi(['function execute(address dest, uint256 value, bytes func)']);
const entryPointWithdrawAbi = parseAbi(['function withdrawTo(address withdrawAddress, uint256 withdrawAmount)']);

describe('gas sponsorship: operator caps per plan and account, reverting ops, bounds on the op', () => {
  let chain: IndexedChain;
  let key: string;
  let bundlerUrl: string;

  beforeAll(async () => {
    chain = await startIndexedChain({
      settings: {
        bundler_keys: devnetExecutorKeys[0],
        sponsor_key: devnetSponsorKey,
        // $2,000 per ETH: a plain op below (about 540k gas) costs up to about $2.16 at 2 gwei.
        tokens: { prices: [{ chain: 'ethereum', network: 'devnet', contract: 'native', usd: '2000' }] },
        gas: { sponsorship_caps: { growth: { usd_per_day: '3', usd_total: null } } },
      },
      chainSettings: {
        bundler: { enabled: true },
        erc4337: { paymaster_v06: devnetPaymasters.v06, paymaster_v07: devnetPaymasters.v07 },
      },
    });
    await installErc4337Contracts(chain.service.anvil.url);
    const network = { config: chain.service.service.ctx.config.chains[0]! } as Pick<Network, 'config'>;
    await installDevnetPaymasters(chain.service.anvil.url, paymasterSetupsOf(network, chain.service.service.ctx.config));
    key = (await chain.service.createKey()).key;
    bundlerUrl = bundlerUrlOf(chain.service.url);
  }, 120_000);
  afterAll(async () => {
    await chain?.service.stop();
  });

  const api = async (method: string, path: string, body: unknown, apiKey: string) => {
    const response = await fetch(`${chain.service.url}${path}`, {
      method,
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
    return { status: response.status, body: (await response.json()) as any };
  };
  const newPolicy = async (apiKey: string) => {
    const created = await api('POST', '/v1/gas/policies', { name: 'no rules', chain: 'ethereum', rules: {} }, apiKey);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id as string;
  };
  /** A fresh account's first op (it deploys), with its gas fields: up to about $2.16 at 2 gwei. */
  const opFor = async (changes: Partial<UserOperation<'0.7'>> = {}) => {
    const account = await newEmptyAccount(chain.publicClient, '0.7');
    const { factory, factoryData } = await account.getFactoryArgs();
    return formatUserOperationRequest({
      sender: account.address,
      nonce: 0n,
      factory,
      factoryData,
      callData: '0x',
      callGasLimit: 50_000n,
      verificationGasLimit: 400_000n,
      preVerificationGas: 60_000n,
      maxFeePerGas: 2n * gwei,
      maxPriorityFeePerGas: gwei,
      signature: '0x',
      ...changes,
    } as UserOperation<'0.7'>);
  };
  const sponsor = (apiKey: string, policyId: string, userOperation: unknown) =>
    api('POST', '/v1/gas/sponsor', { chain: 'ethereum', policy_id: policyId, user_operation: userOperation }, apiKey);
  const pm = (apiKey: string, method: string, policyId: string, userOperation: unknown) =>
    callBundler(bundlerUrl, apiKey, method, [userOperation, entryPoint07Address, '0x7a69', { policy_id: policyId }]);

  it("a free account's plan caps: $10 a UTC day across all its policies, then 403 naming the operator cap", async () => {
    // The free plan's compute units per second would throttle this test's calls: only they are lifted.
    const free = await chain.service.createKey({ plan: 'free', limits: { cups: null, rps: null } });
    const account = await chain.service.admin('GET', `/admin/accounts/${free.accountId}`);
    expect(account.body.limits).toMatchObject({ sponsorship_usd_per_day: '10', sponsorship_usd_total: '100' });
    const [first, second] = [await newPolicy(free.key), await newPolicy(free.key)];

    const expensive = await sponsor(free.key, first, await opFor({ maxFeePerGas: 10n * gwei }));
    expect(expensive.status).toBe(403);
    expect(expensive.body.error).toMatchObject({ code: 'policy_violation', status: 403 });
    expect(expensive.body.error.message).toMatch(
      /^operator cap sponsorship_usd_per_day exceeded: this account has had 0\.00 of 10\.00 sponsored today \(UTC\), this op up to 10\.\d\d/,
    );
    for (const policyId of [first, second, first, second]) {
      const granted = await sponsor(free.key, policyId, await opFor());
      expect(granted.status, JSON.stringify(granted.body)).toBe(200);
    }
    const fifth = await sponsor(free.key, second, await opFor());
    expect(fifth.status).toBe(403);
    expect(fifth.body.error.message).toMatch(
      /^operator cap sponsorship_usd_per_day exceeded: this account has had 8\.\d\d of 10\.00/,
    );
    // ERC-7677 refuses the same way, as the paymaster's refusal.
    const viaPm = await pm(free.key, 'pm_getPaymasterData', first, await opFor());
    expect(viaPm.error).toMatchObject({ code: -32501, data: { code: 'policy_violation' } });
    expect(viaPm.error?.message).toMatch(/^operator cap sponsorship_usd_per_day exceeded/);

    // The operator lifts the daily cap for this account and sets a total instead.
    const patched = await chain.service.admin('PATCH', `/admin/accounts/${free.accountId}`, {
      limits: { cups: null, rps: null, sponsorship_usd_per_day: null, sponsorship_usd_total: '11.50' },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.limits).toMatchObject({ sponsorship_usd_per_day: null, sponsorship_usd_total: '11.50' });
    expect((await sponsor(free.key, first, await opFor())).status).toBe(200);
    const total = await sponsor(free.key, first, await opFor());
    expect(total.status).toBe(403);
    expect(total.body.error.message).toMatch(
      /^operator cap sponsorship_usd_total exceeded: this account has had 10\.\d\d of 11\.50 sponsored in total/,
    );
    const bad = await chain.service.admin('PATCH', `/admin/accounts/${free.accountId}`, {
      limits: { sponsorship_usd_total: '-5' },
    });
    expect(bad.status).toBe(400);
  });

  it('plan caps come from gas.sponsorship_caps; an account created with a cap of 0 gets nothing, its stub data neither', async () => {
    const growth = await chain.service.createKey({ plan: 'growth' });
    const growthPolicy = await newPolicy(growth.key);
    expect((await sponsor(growth.key, growthPolicy, await opFor())).status).toBe(200);
    const over = await sponsor(growth.key, growthPolicy, await opFor());
    expect(over.body.error.message).toMatch(/^operator cap sponsorship_usd_per_day exceeded: .* of 3\.00/);

    const none = await chain.service.createKey({ plan: 'enterprise', limits: { sponsorship_usd_total: '0' } as never });
    const nonePolicy = await newPolicy(none.key);
    const refused = await sponsor(none.key, nonePolicy, await opFor());
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(
      /^operator cap sponsorship_usd_total exceeded: this account has had 0\.00 of 0\.00/,
    );
    const stub = await pm(none.key, 'pm_getPaymasterStubData', nonePolicy, await opFor());
    expect(stub.error).toMatchObject({ code: -32501, data: { code: 'policy_violation' } });
    // Refusals reserve nothing.
    const rows = await chain.service.database.db
      .selectFrom('gas_sponsorships')
      .select('id')
      .where('account_id', '=', none.accountId)
      .execute();
    expect(rows).toHaveLength(0);
  });

  it('an op whose execution reverts in simulation is refused with the revert (400; -32521 over ERC-7677, stub data too), nothing reserved', async () => {
    const policyId = await newPolicy(key);
    // The account asks the EntryPoint for a deposit it does not have: Error("Withdraw amount too large").
    const callData = encodeFunctionData({
      abi: simpleAccountAbi,
      functionName: 'execute',
      args: [
        entryPoint07Address,
        0n,
        encodeFunctionData({ abi: entryPointWithdrawAbi, functionName: 'withdrawTo', args: [entryPoint07Address, 1n] }),
      ],
    });
    const reverting = await sponsor(key, policyId, await opFor({ callData }));
    expect(reverting.status).toBe(400);
    expect(reverting.body.error.code).toBe('invalid_request');
    expect(reverting.body.error.message).toMatch(
      /^invalid parameter 'user_operation\.callData': UserOperation reverted during simulation with reason: Withdraw amount too large/,
    );
    // Over ERC-7677 the bundler's own error: the revert bytes as hex (Error("Withdraw amount too large")).
    for (const method of ['pm_getPaymasterStubData', 'pm_getPaymasterData']) {
      const viaPm = await pm(key, method, policyId, await opFor({ callData }));
      expect(viaPm.error?.code, method).toBe(-32521);
      expect(viaPm.error?.message).toMatch(
        /^UserOperation reverted during simulation with reason: 0x08c379a0[0-9a-f]+ \(Withdraw amount too large\)$/,
      );
      expect(viaPm.error?.data).toBe(viaPm.error?.message.split(': ')[1]?.split(' ')[0]);
    }
    // The same op with a call that succeeds is sponsored.
    const fine = encodeFunctionData({ abi: simpleAccountAbi, functionName: 'execute', args: [entryPoint07Address, 0n, '0x'] });
    expect((await sponsor(key, policyId, await opFor({ callData: fine }))).status).toBe(200);
    const usage = await fetch(`${chain.service.url}/v1/gas/policies/${policyId}/usage`, { headers: { 'x-api-key': key } });
    expect(((await usage.json()) as { ops: number }).ops).toBe(1);
  });

  it('gas values no EntryPoint takes, or no block or deposit could hold, are 400 naming the field and the bound; a real shortfall stays 503', async () => {
    const policyId = await newPolicy(key);
    const max128 = 2n ** 128n - 1n;
    for (const field of [
      'callGasLimit',
      'verificationGasLimit',
      'preVerificationGas',
      'maxFeePerGas',
      'maxPriorityFeePerGas',
    ] as const) {
      const answer = await sponsor(key, policyId, await opFor({ [field]: max128 }));
      expect(answer.status, `${field}: ${JSON.stringify(answer.body)}`).toBe(400);
      expect(answer.body.error.message).toMatch(
        new RegExp(`^invalid parameter 'user_operation\\.${field}': .*at most 2\\^120-1`),
      );
    }
    const viaPm = await pm(key, 'pm_getPaymasterData', policyId, await opFor({ callGasLimit: max128 }));
    expect(viaPm.error?.code).toBe(-32602);
    expect(viaPm.error?.message).toMatch(/user_operation\.callGasLimit.*2\^120-1/);
    const stub = await pm(key, 'pm_getPaymasterStubData', policyId, await opFor({ maxFeePerGas: max128 }));
    expect(stub.error?.code).toBe(-32602);

    const huge = await sponsor(key, policyId, await opFor({ verificationGasLimit: 2n ** 60n }));
    expect(huge.status).toBe(400);
    expect(huge.body.error.message).toMatch(
      /^invalid parameter 'user_operation\.verificationGasLimit': .*a block of this network holds at most \d+/,
    );
    const unfundable = await sponsor(key, policyId, await opFor({ maxFeePerGas: 2n ** 100n, maxPriorityFeePerGas: gwei }));
    expect(unfundable.status).toBe(400);
    expect(unfundable.body.error.message).toMatch(/^invalid parameter 'user_operation\.maxFeePerGas': .*2\^112-1/);

    // 10,000 ETH of gas: fundable, more than the devnet paymaster holds.
    const shortfall = await sponsor(key, policyId, await opFor({ maxFeePerGas: 20_000_000n * gwei }));
    expect(shortfall.status, JSON.stringify(shortfall.body)).toBe(503);
    expect(shortfall.body.error.message).toMatch(/fund the paymaster/);
  });
});
