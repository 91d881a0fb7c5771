import { type Address, BaseError, createTestClient, http, RpcRequestError } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptingPaymasterCode, type Draft, type ErrorBench, entryPointOf, startErrorBench } from './error-bench.ts';
import { aaCases } from './error-cases.ts';
import { acceptingAccountCode, bundlerClientFor, callBundler, generousFees } from './support.ts';

describe('each EntryPoint failure is its ERC-7769 code, first, whatever the fee and preVerificationGas floors say', () => {
  let bench: ErrorBench;

  beforeAll(async () => {
    bench = await startErrorBench();
  }, 180_000);
  afterAll(async () => {
    await bench?.sponsored.chain.service.stop();
  });

  describe.each(['enough', 'low'] as const)('with %s preVerificationGas', (preVerificationGas) => {
    it.each(aaCases)(
      '$reason (EntryPoint $version) is $code with its reason',
      async ({ reason, code, draft }) => {
        const built = await draft(bench);
        const answer = await bench.send(built, preVerificationGas);
        expect(answer.error, `v${built.version} ${JSON.stringify(answer)}`).toMatchObject({ code });
        expect(answer.error?.message).toMatch(new RegExp(`^${reason}`));
      },
      30_000,
    );
  });

  it('a junk op (an undeployed sender, no factory, nonce 5) is AA20 at once: no gap is waited on for a deploying op that never comes', async () => {
    const sender = privateKeyToAccount(generatePrivateKey()).address;
    const startedAt = performance.now();
    const answer = await bench.send({ version: '0.7', sender, nonce: 5n, signature: bench.owner }, 'enough');
    const tookMs = performance.now() - startedAt;
    expect(answer.error, JSON.stringify(answer)).toMatchObject({ code: -32500 });
    expect(answer.error?.message).toMatch(/^AA20/);
    // The gap grace of a nonce the lower ones may still fill is 5 s.
    expect(tookMs).toBeLessThan(4_000);
  });

  it.each(['AA30', 'AA31', 'AA33'])('estimating an op with %s gives the code and reason sending it gives', async (reason) => {
    const entry = aaCases.find((candidate) => candidate.reason === reason && candidate.version === '0.7')!;
    const answer = await bench.send(await entry.draft(bench), 'enough', 'eth_estimateUserOperationGas');
    expect(answer.error, JSON.stringify(answer)).toMatchObject({ code: entry.code });
    expect(answer.error?.message).toMatch(new RegExp(`^${reason}`));
  });

  it("viem's bundler client gets the simulation's error (AA21, -32500) for an unfunded account with a low preVerificationGas", async () => {
    const account = await bench.simpleAccount('0.7');
    const client = bundlerClientFor(bench.url, bench.sponsored.key, bench.publicClient);
    const error = await client
      .sendUserOperation({
        account,
        calls: [{ to: account.address, value: 0n }],
        callGasLimit: 50_000n,
        verificationGasLimit: 600_000n,
        preVerificationGas: 1_000n,
        ...(await generousFees(bench.publicClient)),
      })
      .then(
        () => undefined,
        (failure: unknown) => failure as BaseError,
      );
    expect(error).toBeInstanceOf(BaseError);
    expect(error?.details).toMatch(/^AA21 didn't pay prefund/);
    const rpc = error?.walk((cause) => cause instanceof RpcRequestError) as RpcRequestError | null;
    expect(rpc?.code).toBe(-32500);
  });

  it('an op that validates is still held to the floors: preVerificationGas, then maxFeePerGas under the base fee', async () => {
    const draft: Draft = {
      version: '0.7',
      sender: bench.deployed.address,
      verificationGasLimit: 200_000n,
      signature: bench.owner,
    };
    const low = await bench.send(draft, 'low');
    expect(low.error).toMatchObject({ code: -32602 });
    expect(low.error?.message).toMatch(/^preVerificationGas 1000 is below the \d+ this operation needs/);
    const cheap = await bench.send({ ...draft, fields: { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n } }, 'enough');
    expect(cheap.error).toMatchObject({ code: -32602 });
    expect(cheap.error?.message).toMatch(/^maxFeePerGas 1 is below the next block's base fee/);
    // An op that fails simulation with fees under the base fee too: the simulation's error.
    const both = await bench.send(
      { ...draft, signature: '0xdeadbeef', fields: { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n } },
      'low',
    );
    expect(both.error).toMatchObject({ code: -32500 });
    expect(both.error?.message).toMatch(/^AA23/);
  });

  it('a paymaster whose deposit cannot pay for an op beside its ops in the mempool is -32508 (AA31), before the floors', async () => {
    const testClient = createTestClient({ chain: foundry, mode: 'anvil', transport: http(bench.anvilUrl) });
    const paymaster = privateKeyToAccount(generatePrivateKey()).address;
    await testClient.setCode({ address: paymaster, bytecode: acceptingPaymasterCode });
    const senders = [0, 1].map(() => privateKeyToAccount(generatePrivateKey()).address);
    for (const sender of senders) await testClient.setCode({ address: sender, bytecode: acceptingAccountCode });
    const fees = await generousFees(bench.publicClient);
    const draftOf = (sender: Address): Draft => ({
      version: '0.7',
      sender,
      verificationGasLimit: 100_000n,
      fields: fees,
      paymaster: bench.paymasterFields(paymaster, '0x', 50_000n),
      signature: '0x',
    });
    // Gas limits of 10k + 100k + 50k + 150k: one op fits in 1.2 ops' worth, two do not.
    const cost = 310_000n * fees.maxFeePerGas;
    await bench.depositFor([['0.7', paymaster]], (cost * 12n) / 10n);
    expect((await callBundler(bench.url, bench.sponsored.key, 'debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok');
    try {
      const first = await bench.send(draftOf(senders[0]!), 'enough');
      expect(first.error, JSON.stringify(first.error)).toBeUndefined();
      for (const preVerificationGas of ['enough', 'low'] as const) {
        const second = await bench.send(draftOf(senders[1]!), preVerificationGas);
        expect(second.error, preVerificationGas).toMatchObject({ code: -32508, data: { pending: 1 } });
        expect(second.error?.message).toMatch(
          new RegExp(
            `^AA31 paymaster deposit too low: the deposit of the paymaster ${paymaster.toLowerCase()} \\(\\d+ wei\\) cannot pay for this operation .* beside its 1 operations already in the mempool`,
          ),
        );
      }
    } finally {
      await callBundler(bench.url, bench.sponsored.key, 'debug_bundler_clearState', []);
      await callBundler(bench.url, bench.sponsored.key, 'debug_bundler_setBundlingMode', ['auto']);
    }
  });

  it('nothing refused is in the mempool', async () => {
    for (const version of ['0.6', '0.7'] as const) {
      const mempool = await callBundler(bench.url, bench.sponsored.key, 'debug_bundler_dumpMempool', [entryPointOf[version]]);
      expect(mempool.result).toEqual([]);
    }
  });

  it('the same op sent twice is "already known"; another at the same nonce under +10% is "replacement underpriced"', async () => {
    expect((await callBundler(bench.url, bench.sponsored.key, 'debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok');
    try {
      const fees = await generousFees(bench.publicClient);
      const draft: Draft = {
        version: '0.7',
        sender: bench.deployed.address,
        verificationGasLimit: 200_000n,
        fields: fees,
        signature: bench.owner,
      };
      const first = await bench.send(draft, 'enough');
      expect(first.error, JSON.stringify(first.error)).toBeUndefined();
      const again = await bench.send(draft, 'enough');
      expect(again.error).toMatchObject({ code: -32602 });
      expect(again.error?.message).toBe(`already known: the UserOperation ${first.result} is already in the mempool`);
      const bumped = await bench.send({ ...draft, fields: { ...fees, maxFeePerGas: fees.maxFeePerGas + 1n } }, 'enough');
      expect(bumped.error?.message).toMatch(/^replacement underpriced/);
    } finally {
      await callBundler(bench.url, bench.sponsored.key, 'debug_bundler_clearState', []);
      await callBundler(bench.url, bench.sponsored.key, 'debug_bundler_setBundlingMode', ['auto']);
    }
  });

  it.each([
    ['yParity', { yParity: '0x2' }],
    ['r', { r: '0x0' }],
    ['s', { s: `0x${'ff'.repeat(32)}` }],
    // High s: the malleable twin of a valid signature, which EIP-7702 refuses.
    ['s', { s: '0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a1' }],
    ['chainId', { chainId: 'mainnet' }],
    ['address', { address: '0x1234' }],
  ])('a malformed eip7702Auth.%s is -32602 naming the field, at estimation and at sending', async (field, change) => {
    const eip7702Auth = {
      address: '0xC143Fe9347eC5fe29173073A219AE20D65EcD945',
      chainId: '0x7a69',
      nonce: '0x0',
      r: `0x${'11'.repeat(32)}`,
      s: `0x${'22'.repeat(32)}`,
      yParity: '0x1',
      ...change,
    };
    const op = {
      sender: privateKeyToAccount(generatePrivateKey()).address,
      nonce: '0x0',
      callData: '0x',
      callGasLimit: '0x2710',
      verificationGasLimit: '0x30d40',
      preVerificationGas: '0x3e8',
      maxFeePerGas: '0x1',
      maxPriorityFeePerGas: '0x1',
      signature: '0x',
      eip7702Auth,
    };
    for (const method of ['eth_estimateUserOperationGas', 'eth_sendUserOperation']) {
      const answer = await callBundler(bench.url, bench.sponsored.key, method, [op, entryPoint07Address]);
      expect(answer.error, method).toMatchObject({ code: -32602, data: { field: `eip7702Auth.${field}` } });
      expect(answer.error?.message).toMatch(
        new RegExp(`^Invalid EIP-7702 authorization: userOperation\\.eip7702Auth\\.${field}`),
      );
    }
  });
});
