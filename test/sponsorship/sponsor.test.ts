import { type Address, createPublicClient, createWalletClient, formatEther, type Hex, http, type PublicClient } from 'viem';
import {
  createBundlerClient,
  createPaymasterClient,
  entryPoint07Address,
  formatUserOperationRequest,
  toPackedUserOperation,
  type UserOperation,
} from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPolicy, sendSponsored, usage } from '../../examples/gas-sponsorship.ts';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import type { Network } from '../../src/chains/registry.ts';
import { entryPointV07Abi } from '../../src/erc4337/contracts/abis.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { paymasterDeposit } from '../../src/paymaster/deposit.ts';
import { installDevnetPaymasters } from '../../src/paymaster/install-devnet-paymasters.ts';
import { type PaymasterSetups, paymasterSetupsOf } from '../../src/paymaster/paymaster-setup.ts';
import { devnetSponsorKey } from '../../src/paymaster/sponsor-key.ts';
import { bundlerUrlOf, callBundler } from '../bundler/support.ts';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';
import { devnetPaymasters, newEmptyAccount } from '../paymaster/support.ts';
import { eventually } from '../support/cli.ts';

/** The native coin's price these tests set (tokens.prices, contract: native). */
const ethUsd = '2000';

describe('gas sponsorship: policies, POST /v1/gas/sponsor, ERC-7677 and usage', () => {
  let chain: IndexedChain;
  let key: string;
  let otherKey: string;
  let setups: PaymasterSetups;
  let publicClient: PublicClient;
  let bundlerUrl: string;

  beforeAll(async () => {
    chain = await startIndexedChain({
      settings: {
        bundler_keys: devnetExecutorKeys[0],
        sponsor_key: devnetSponsorKey,
        tokens: { prices: [{ chain: 'ethereum', network: 'devnet', contract: 'native', usd: ethUsd }] },
      },
      chainSettings: {
        bundler: { enabled: true },
        erc4337: { paymaster_v06: devnetPaymasters.v06, paymaster_v07: devnetPaymasters.v07 },
      },
    });
    await installErc4337Contracts(chain.service.anvil.url);
    const network = { config: chain.service.service.ctx.config.chains[0]! } as Pick<Network, 'config'>;
    setups = paymasterSetupsOf(network, chain.service.service.ctx.config);
    await installDevnetPaymasters(chain.service.anvil.url, setups);
    key = (await chain.service.createKey()).key;
    otherKey = (await chain.service.createKey()).key;
    publicClient = createPublicClient({ chain: foundry, transport: http(chain.service.anvil.url) }) as PublicClient;
    bundlerUrl = bundlerUrlOf(chain.service.url);
  }, 120_000);
  afterAll(async () => {
    await chain?.service.stop();
  });

  const api = async (method: string, path: string, body?: unknown, apiKey = key) => {
    const response = await fetch(`${chain.service.url}${path}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
    return { status: response.status, body: (await response.json()) as any };
  };
  const newPolicy = async (rules: Record<string, unknown>, apiKey = key) => {
    const created = await api('POST', '/v1/gas/policies', { name: 'test', chain: 'ethereum', network: 'devnet', rules }, apiKey);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id as string;
  };
  const fees = async () => {
    const block = await publicClient.getBlock();
    return { maxFeePerGas: (block.baseFeePerGas ?? 0n) * 2n + 1_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n };
  };
  /** viem's bundler client on Blockyard with Blockyard as its ERC-7677 paymaster, for one policy. */
  const sponsoredClient = (policyId: string) =>
    createBundlerClient({
      client: publicClient,
      chain: foundry,
      transport: http(bundlerUrl, { fetchOptions: { headers: { 'x-api-key': key } }, retryCount: 0 }),
      paymaster: createPaymasterClient({
        transport: http(bundlerUrl, { fetchOptions: { headers: { 'x-api-key': key } }, retryCount: 0 }),
      }),
      paymasterContext: { policy_id: policyId },
      pollingInterval: 100,
      userOperation: { estimateFeesPerGas: fees },
    });

  it.each(['0.7', '0.6'] as const)(
    'v%s through ERC-7677: an account with no ETH deploys and sends; the paymaster pays; usage settles at the actual cost',
    async (version) => {
      const policyId = await newPolicy({ max_gas_usd: '100', max_ops_per_sender: 5 });
      const account = await newEmptyAccount(publicClient, version);
      const setup = setups[version]!;
      const depositBefore = await paymasterDeposit(publicClient, setup);
      const client = sponsoredClient(policyId);
      const recipient = privateKeyToAccount(generatePrivateKey()).address;
      const hash = await client.sendUserOperation({ account, calls: [{ to: recipient, value: 0n, data: '0x' }] });
      const receipt = await client.waitForUserOperationReceipt({ hash, timeout: 30_000 });
      expect(receipt.success).toBe(true);
      expect(receipt.paymaster?.toLowerCase()).toBe(setup.address.toLowerCase());
      expect(await publicClient.getBalance({ address: account.address })).toBe(0n);
      expect(await paymasterDeposit(publicClient, setup)).toBe(depositBefore - receipt.actualGasCost);

      const usage = await eventually(
        async () => {
          const answer = await api('GET', `/v1/gas/policies/${policyId}/usage`);
          return answer.body.settled_usd !== '0' ? answer.body : undefined;
        },
        { timeoutMs: 15_000, what: 'the sponsorship settled' },
      );
      const actualUsd = Number(formatEther(receipt.actualGasCost)) * Number(ethUsd);
      expect(Number(usage.settled_usd)).toBeCloseTo(actualUsd, 9);
      expect(usage).toMatchObject({ ops: 1, reserved_usd: '0', by_sender: [{ sender: account.address.toLowerCase(), ops: 1 }] });
      expect(usage.by_day).toHaveLength(1);
    },
  );

  it('examples/gas-sponsorship.ts runs as written: policy, a sponsored op from an account with no ETH, usage', async () => {
    const endpoint = { baseUrl: chain.service.url, apiKey: key };
    const policy = await createPolicy(endpoint);
    const sent = await sendSponsored(
      endpoint,
      policy.id,
      generatePrivateKey(),
      privateKeyToAccount(generatePrivateKey()).address,
    );
    expect(sent).toMatchObject({ success: true, accountBalance: 0n });
    expect(sent.paymaster?.toLowerCase()).toBe(setups['0.7']!.address.toLowerCase());
    const used = await eventually(
      async () => {
        const answer = await usage(endpoint, policy.id);
        return answer.settled_usd !== '0' ? answer : undefined;
      },
      { timeoutMs: 15_000, what: 'the example op settled' },
    );
    expect(used.ops).toBe(1);
  });

  it.each(['0.7', '0.6'] as const)(
    'v%s: POST /v1/gas/sponsor signs fields that the bundler accepts for the op as given',
    async (version) => {
      const policyId = await newPolicy({ max_gas_usd_per_op: '50' });
      const account = await newEmptyAccount(publicClient, version);
      const plain = createBundlerClient({
        client: publicClient,
        chain: foundry,
        transport: http(bundlerUrl, { fetchOptions: { headers: { 'x-api-key': key } }, retryCount: 0 }),
        userOperation: { estimateFeesPerGas: fees },
        paymaster: {
          getPaymasterStubData: async (request) => {
            const stub = await callBundler(bundlerUrl, key, 'pm_getPaymasterStubData', [
              formatUserOperationRequest(request as never),
              account.entryPoint.address,
              '0x7a69',
              { policy_id: policyId },
            ]);
            expect(stub.error, JSON.stringify(stub.error)).toBeUndefined();
            return stub.result;
          },
          getPaymasterData: async (request) => {
            const sponsored = await api('POST', '/v1/gas/sponsor', {
              chain: 'ethereum',
              policy_id: policyId,
              entry_point: account.entryPoint.address,
              user_operation: formatUserOperationRequest(request as never),
            });
            expect(sponsored.status, JSON.stringify(sponsored.body)).toBe(200);
            expect(Number(sponsored.body.sponsored_gas_usd)).toBeGreaterThan(0);
            return sponsored.body;
          },
        },
      });
      const hash = await plain.sendUserOperation({ account, calls: [{ to: account.address, value: 0n, data: '0x' }] });
      const receipt = await plain.waitForUserOperationReceipt({ hash, timeout: 30_000 });
      expect(receipt.success).toBe(true);
      expect(receipt.paymaster?.toLowerCase()).toBe(setups[version]!.address.toLowerCase());
      expect(await publicClient.getBalance({ address: account.address })).toBe(0n);
    },
  );

  /** An op of a fresh account with its gas fields, as the sponsor endpoint receives it. */
  const opFor = async (sender?: Address, callData: Hex = '0x') => {
    const account = await newEmptyAccount(publicClient, '0.7');
    const { factory, factoryData } = await account.getFactoryArgs();
    return formatUserOperationRequest({
      sender: sender ?? account.address,
      nonce: 0n,
      factory,
      factoryData,
      callData,
      callGasLimit: 50_000n,
      verificationGasLimit: 400_000n,
      preVerificationGas: 60_000n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      signature: '0x',
    } as UserOperation<'0.7'>);
  };
  const sponsor = (policyId: string, userOperation: unknown, apiKey = key) =>
    api('POST', '/v1/gas/sponsor', { chain: 'ethereum', policy_id: policyId, user_operation: userOperation }, apiKey);

  it('50 concurrent sponsor calls against a USD cap never reserve more than the cap', async () => {
    // Each op is priced at up to (60k + 400k + 50k + paymaster limits) gas x 2 gwei x $2,000: about $2.2.
    const policyId = await newPolicy({ max_gas_usd: '20' });
    const ops = await Promise.all(Array.from({ length: 50 }, () => opFor()));
    const answers = await Promise.all(ops.map((op) => sponsor(policyId, op)));
    const granted = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status === 403);
    expect(granted.length + refused.length).toBe(50);
    const total = granted.reduce((sum, answer) => sum + Number(answer.body.sponsored_gas_usd), 0);
    expect(total).toBeLessThanOrEqual(20);
    expect(total + Number(granted[0]!.body.sponsored_gas_usd)).toBeGreaterThan(20);
    expect(refused[0]!.body.error).toMatchObject({ code: 'policy_violation', status: 403 });
    expect(refused[0]!.body.error.message).toMatch(/^max_gas_usd exceeded: \d+\.\d\d of 20\.00 used, this op up to \d+\.\d\d$/);
    const usage = await api('GET', `/v1/gas/policies/${policyId}/usage`);
    expect(usage.body.ops).toBe(granted.length);
    expect(Number(usage.body.reserved_usd)).toBeCloseTo(total, 6);
  });

  it('refuses by the rules, a paused policy, another account, a bad op: each with a clear error', async () => {
    const token = '0x000000000000000000000000000000000000c0de';
    const contracts = await newPolicy({ allowed_contracts: [token] });
    const refused = await sponsor(contracts, await opFor());
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/^allowed_contracts/);

    const perOp = await newPolicy({ max_gas_usd_per_op: '0.01' });
    expect((await sponsor(perOp, await opFor())).body.error.message).toMatch(
      /^max_gas_usd_per_op exceeded: this op up to \d+\.\d\d, the limit 0\.01$/,
    );

    const blockedSender = privateKeyToAccount(generatePrivateKey()).address;
    const blocked = await newPolicy({ blocked_senders: [blockedSender] });
    expect((await sponsor(blocked, await opFor(blockedSender))).body.error.message).toMatch(/^blocked_senders/);

    const paused = await newPolicy({});
    expect((await api('PATCH', `/v1/gas/policies/${paused}`, { status: 'paused' })).status).toBe(200);
    const pausedAnswer = await sponsor(paused, await opFor());
    expect(pausedAnswer.status).toBe(403);
    expect(pausedAnswer.body.error.message).toMatch(/is paused/);

    const theirs = await newPolicy({}, otherKey);
    const foreign = await sponsor(theirs, await opFor());
    expect(foreign.status).toBe(404);

    const bad = await sponsor(contracts, { sender: '0x1234' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^invalid parameter 'user_operation\.sender'/);

    // Nothing reserved by any refusal.
    for (const id of [contracts, perOp, blocked, paused]) {
      expect((await api('GET', `/v1/gas/policies/${id}/usage`)).body.ops).toBe(0);
    }
  });

  it('ERC-7677 names the policy refusal in JSON-RPC (-32501) and checks the chain id', async () => {
    const policyId = await newPolicy({ max_ops: 1 });
    const op = await opFor();
    const first = await callBundler(bundlerUrl, key, 'pm_getPaymasterData', [
      op,
      entryPoint07Address,
      '0x7a69',
      { policy_id: policyId },
    ]);
    expect(first.error).toBeUndefined();
    expect(first.result.paymaster.toLowerCase()).toBe(setups['0.7']!.address.toLowerCase());
    const second = await callBundler(bundlerUrl, key, 'pm_getPaymasterData', [
      await opFor(),
      entryPoint07Address,
      '0x7a69',
      { policy_id: policyId },
    ]);
    expect(second.error).toMatchObject({ code: -32501, data: { code: 'policy_violation' } });
    expect(second.error?.message).toBe('max_ops reached: 1 of 1 operations sponsored');
    const wrongChain = await callBundler(bundlerUrl, key, 'pm_getPaymasterStubData', [
      op,
      entryPoint07Address,
      '0x1',
      { policy_id: policyId },
    ]);
    expect(wrongChain.error?.code).toBe(-32602);
    const noPolicy = await callBundler(bundlerUrl, key, 'pm_getPaymasterStubData', [op, entryPoint07Address, '0x7a69', {}]);
    expect(noPolicy.error?.message).toMatch(/context\) must name a gas policy/);
    const noParams = await callBundler(bundlerUrl, key, 'pm_getPaymasterData', []);
    expect(noParams.error).toMatchObject({ code: -32602, message: 'the first parameter must be a UserOperation object' });
  });

  it('an expired unused sponsorship is released; one another bundler included is settled from the chain', async () => {
    const policyId = await newPolicy({ max_ops: 10 });
    const unused = await sponsor(policyId, await opFor());
    expect(unused.status).toBe(200);

    // A sponsored op signed here and sent by another bundler (anvil #9 calls handleOps itself).
    const account = await newEmptyAccount(publicClient, '0.7');
    const client = createBundlerClient({
      client: publicClient,
      chain: foundry,
      transport: http(bundlerUrl, { fetchOptions: { headers: { 'x-api-key': key } }, retryCount: 0 }),
      userOperation: { estimateFeesPerGas: fees },
      paymaster: {
        getPaymasterStubData: async (request) =>
          (
            await callBundler(bundlerUrl, key, 'pm_getPaymasterStubData', [
              formatUserOperationRequest(request as never),
              entryPoint07Address,
              '0x7a69',
              { policy_id: policyId },
            ])
          ).result,
        getPaymasterData: async (request) => (await sponsor(policyId, formatUserOperationRequest(request as never))).body,
      },
    });
    const prepared = await client.prepareUserOperation({ account, calls: [{ to: account.address, value: 0n, data: '0x' }] });
    const signature = await account.signUserOperation(prepared as never);
    const other = createWalletClient({
      account: privateKeyToAccount('0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6'),
      chain: foundry,
      transport: http(chain.service.anvil.url),
    });
    const tx = await other.writeContract({
      address: entryPoint07Address,
      abi: entryPointV07Abi,
      functionName: 'handleOps',
      args: [[toPackedUserOperation({ ...(prepared as unknown as UserOperation<'0.7'>), signature })], other.account.address],
      gas: 2_000_000n,
    });
    const landed = await publicClient.waitForTransactionReceipt({ hash: tx });
    expect(landed.status).toBe('success');

    // Both signatures' time is up (as if 10 minutes had passed): the settler looks on chain.
    await chain.service.database.db
      .updateTable('gas_sponsorships')
      .set({ valid_until: new Date(Date.now() - 3_600_000) })
      .where('policy_id', '=', policyId)
      .execute();
    await chain.service.service.sponsorshipSettler!.settleNow();
    const rows = await chain.service.database.db
      .selectFrom('gas_sponsorships')
      .select(['user_op_hash', 'status', 'actual_cost_wei'])
      .where('policy_id', '=', policyId)
      .execute();
    const released = rows.find((row) => row.user_op_hash === unused.body.user_op_hash);
    expect(released).toMatchObject({ status: 'released', actual_cost_wei: null });
    const settled = rows.filter((row) => row.user_op_hash !== unused.body.user_op_hash);
    // The prepare step sponsored once, which is the op that landed.
    expect(settled).toHaveLength(1);
    expect(settled[0]!.status).toBe('settled');
    expect(BigInt(settled[0]!.actual_cost_wei!)).toBeGreaterThan(0n);
    const usage = await api('GET', `/v1/gas/policies/${policyId}/usage`);
    expect(usage.body).toMatchObject({ ops: 1, reserved_usd: '0' });
  });

  it('refuses when the paymaster deposit cannot cover the op beside what is reserved (503)', async () => {
    const policyId = await newPolicy({});
    const setup = setups['0.7']!;
    const deposit = await paymasterDeposit(publicClient, setup);
    // An op whose most possible cost is above the whole deposit.
    const op = { ...(await opFor()), maxFeePerGas: `0x${(deposit / 100_000n).toString(16)}` };
    const answer = await sponsor(policyId, op);
    expect(answer.status).toBe(503);
    expect(answer.body.error.message).toMatch(/paymaster's EntryPoint deposit \(\d+ wei\) cannot cover this op/);
  });
});
