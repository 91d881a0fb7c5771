import { toSimpleSmartAccount } from 'permissionless/accounts';
import {
  type Address,
  BaseError,
  createPublicClient,
  createTestClient,
  createWalletClient,
  type Hex,
  http,
  type PublicClient,
  parseEther,
  RpcRequestError,
} from 'viem';
import {
  entryPoint06Address,
  entryPoint07Address,
  formatUserOperationRequest,
  getUserOperationHash,
  type UserOperation,
} from 'viem/account-abstraction';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyUserOperation } from '../../src/bundler/user-operation.ts';
import { entryPointV06Abi, entryPointV07Abi } from '../../src/erc4337/contracts/abis.ts';
import { installVerifyingPaymasters } from '../../src/paymaster/devnet-paymasters.ts';
import { sponsoredPaymasterFields, stubPaymasterFields } from '../../src/paymaster/paymaster-data.ts';
import type { PaymasterSetup } from '../../src/paymaster/paymaster-setup.ts';
import { type SponsoredChain, startSponsoredChain } from '../paymaster/support.ts';
import {
  acceptingAccountCode,
  bundlerClientFor,
  bundlerUrlOf,
  callBundler,
  fund,
  generousFees,
  type JsonRpcAnswer,
  type SimpleAccount,
} from './support.ts';

type Version = '0.6' | '0.7';
const entryPointOf = { '0.6': entryPoint06Address, '0.7': entryPoint07Address } as const;
const chainId = foundry.id;
const now = () => Math.floor(Date.now() / 1000);

/** Far above what any op here needs (its floor is ~50k), and far below it. */
const preVerificationGasOf = { enough: 150_000n, low: 1_000n } as const;
type PreVerificationGas = keyof typeof preVerificationGasOf;

/**
 * Burns gas until 256 are left, then answers `validateUserOp`: 0 (valid, no time range). With its
 * deposit in the EntryPoint it owes no prefund, so it needs no CALL: its validation uses all but a
 * sliver of what it is given, and the EntryPoint's own work around the call puts the total over the
 * limit (AA26 in v0.7, AA40 in v0.6; AA41 in v0.6 when a paymaster comes after it).
 */
const gasBurningAccountCode: Hex = '0x5b6101005a1160005760206000f3';
/** The same loop answering `validatePaymasterUserOp`: (context "", validationData 0). AA36 in v0.7. */
const gasBurningPaymasterCode: Hex = '0x5b6101005a11600057604060005260606000f3';
/** Answers `validatePaymasterUserOp` at once: (context "", validationData 0): it pays for any op. */
const acceptingPaymasterCode: Hex = '0x604060005260606000f3';
/** Answers `validateUserOp` with validUntil = 1 (1970): an account whose own time range has passed (AA22). */
const expiredAccountCode: Hex = '0x600160a01b60005260206000f3';

describe('each EntryPoint failure is its ERC-7769 code, first, whatever the fee and preVerificationGas floors say', () => {
  let sponsored: SponsoredChain;
  let publicClient: PublicClient;
  let url: string;
  let anvilUrl: string;
  let owner: PrivateKeyAccount;
  /** A SimpleAccount v0.7 deployed (its op 0 landed): the sender of the cases that need one on chain. */
  let deployed: SimpleAccount;
  let deployedFactory: { factory: Address; factoryData: Hex };
  let unfundedPaymaster: Address;
  let burningPaymaster: Address;
  const burningAccount: Record<Version, Address> = {
    '0.6': privateKeyToAccount(generatePrivateKey()).address,
    '0.7': privateKeyToAccount(generatePrivateKey()).address,
  };
  const expiredAccount = privateKeyToAccount(generatePrivateKey()).address;

  const setupOf = (version: Version): PaymasterSetup => sponsored.setups[version]!;

  beforeAll(async () => {
    sponsored = await startSponsoredChain();
    anvilUrl = sponsored.chain.service.anvil.url;
    publicClient = createPublicClient({ chain: foundry, transport: http(anvilUrl) }) as PublicClient;
    url = bundlerUrlOf(sponsored.chain.service.url);
    const testClient = createTestClient({ chain: foundry, mode: 'anvil', transport: http(anvilUrl) });

    owner = privateKeyToAccount(generatePrivateKey());
    deployed = (await simpleAccount('0.7', owner)) as SimpleAccount;
    // Read before it is deployed: viem leaves the factory out once the account has code.
    deployedFactory = (await deployed.getFactoryArgs()) as { factory: Address; factoryData: Hex };
    expect(deployedFactory.factory).toBeTruthy();
    await fund(anvilUrl, [deployed.address], parseEther('1'));
    const bundler = bundlerClientFor(url, sponsored.key, publicClient);
    const first = await bundler.sendUserOperation({
      account: deployed,
      calls: [{ to: deployed.address, value: 0n }],
      ...(await generousFees(publicClient)),
    });
    expect((await bundler.waitForUserOperationReceipt({ hash: first, timeout: 30_000 })).success).toBe(true);

    // A VerifyingPaymaster nobody funded (another signer: another CREATE2 address): AA31.
    const [installed] = await installVerifyingPaymasters(anvilUrl, [
      { version: '0.7', entryPoint: entryPoint07Address, signer: privateKeyToAccount(generatePrivateKey()).address },
    ]);
    unfundedPaymaster = installed!;
    burningPaymaster = privateKeyToAccount(generatePrivateKey()).address;
    await testClient.setCode({ address: burningPaymaster, bytecode: gasBurningPaymasterCode });
    await testClient.setCode({ address: burningAccount['0.7'], bytecode: gasBurningAccountCode });
    await testClient.setCode({ address: burningAccount['0.6'], bytecode: gasBurningAccountCode });
    await testClient.setCode({ address: expiredAccount, bytecode: expiredAccountCode });
    await depositFor([
      ['0.7', burningPaymaster],
      ['0.7', burningAccount['0.7']],
      ['0.6', burningAccount['0.6']],
      ['0.7', expiredAccount],
    ]);
  }, 180_000);
  afterAll(async () => {
    await sponsored?.chain.service.stop();
  });

  /** An EntryPoint deposit (1 ETH unless told) for each address, from a funded throwaway key. */
  async function depositFor(entries: [Version, Address][], value = parseEther('1')) {
    const funder = privateKeyToAccount(generatePrivateKey());
    await fund(anvilUrl, [funder.address], parseEther('10'));
    const wallet = createWalletClient({ account: funder, chain: foundry, transport: http(anvilUrl) });
    for (const [version, address] of entries) {
      const hash = await wallet.writeContract({
        address: entryPointOf[version],
        abi: version === '0.7' ? entryPointV07Abi : entryPointV06Abi,
        functionName: 'depositTo',
        args: [address],
        value,
      });
      await publicClient.waitForTransactionReceipt({ hash });
    }
  }

  async function simpleAccount(version: Version, by: PrivateKeyAccount = privateKeyToAccount(generatePrivateKey())) {
    return toSimpleSmartAccount({
      client: publicClient,
      owner: by,
      entryPoint: { address: entryPointOf[version], version },
      nonceKey: 0n,
    });
  }

  /** A counterfactual SimpleAccount with its factory fields (v0.7) or initCode (v0.6), holding `balance`. */
  async function counterfactual(version: Version, balance: bigint) {
    const by = privateKeyToAccount(generatePrivateKey());
    const account = await simpleAccount(version, by);
    if (balance > 0n) await fund(anvilUrl, [account.address], balance);
    const { factory, factoryData } = (await account.getFactoryArgs()) as { factory: Address; factoryData: Hex };
    const deployment = version === '0.7' ? { factory, factoryData } : { initCode: `${factory}${factoryData.slice(2)}` as Hex };
    return { sender: account.address, by, deployment };
  }

  interface Draft {
    version: Version;
    sender: Address;
    nonce?: bigint;
    fields?: Record<string, unknown>;
    verificationGasLimit?: bigint;
    /** Paymaster fields computed from the op as it will be sent (they may sign it). */
    paymaster?: (op: AnyUserOperation) => Promise<Record<string, unknown>>;
    /** Signs the op's hash; a fixed signature when a string. */
    signature: PrivateKeyAccount | Hex;
  }

  /** The op of `draft` with the given preVerificationGas, signed and sent: the JSON-RPC answer. */
  async function send(
    draft: Draft,
    preVerificationGas: PreVerificationGas,
    method = 'eth_sendUserOperation',
  ): Promise<JsonRpcAnswer> {
    const fees = await generousFees(publicClient);
    let op = {
      sender: draft.sender,
      nonce: draft.nonce ?? (await nonceOf(draft.version, draft.sender)),
      callData: '0x',
      callGasLimit: 10_000n,
      verificationGasLimit: draft.verificationGasLimit ?? 600_000n,
      preVerificationGas: preVerificationGasOf[preVerificationGas],
      ...fees,
      ...(draft.version === '0.6' ? { initCode: '0x', paymasterAndData: '0x' } : {}),
      ...draft.fields,
      signature: '0x',
    } as AnyUserOperation;
    if (draft.paymaster) op = { ...op, ...(await draft.paymaster(op)) } as AnyUserOperation;
    const hash = getUserOperationHash({
      userOperation: op as UserOperation<'0.7'>,
      entryPointAddress: entryPointOf[draft.version],
      entryPointVersion: draft.version as '0.7',
      chainId,
    });
    const signature =
      typeof draft.signature === 'string' ? draft.signature : await draft.signature.signMessage({ message: { raw: hash } });
    return callBundler(url, sponsored.key, method, [
      formatUserOperationRequest({ ...op, signature } as UserOperation),
      entryPointOf[draft.version],
    ]);
  }

  async function nonceOf(version: Version, sender: Address): Promise<bigint> {
    return publicClient.readContract({
      address: entryPointOf[version],
      abi: entryPointV07Abi,
      functionName: 'getNonce',
      args: [sender, 0n],
    });
  }

  /** v0.7 paymaster fields of the VerifyingPaymaster at `paymaster` (any data), with its 30k/0 gas limits. */
  const paymasterFields =
    (paymaster: Address, paymasterData: Hex, verificationGas = 30_000n) =>
    async () => ({
      paymaster,
      paymasterData,
      paymasterVerificationGasLimit: verificationGas,
      paymasterPostOpGasLimit: 0n,
    });
  /** ERC-7677 stub data of the devnet paymaster: the right shape, a signature that recovers to no sponsor. */
  const stubData = () => (stubPaymasterFields(setupOf('0.7')) as { paymasterData: Hex }).paymasterData;

  const cases: { version: Version; reason: string; code: number; draft: () => Promise<Draft> }[] = [
    {
      version: '0.7',
      reason: 'AA10',
      code: -32500,
      draft: async () => ({ version: '0.7', sender: deployed.address, fields: deployedFactory, signature: owner }),
    },
    {
      version: '0.7',
      reason: 'AA13',
      code: -32500,
      draft: async () => {
        const account = await counterfactual('0.7', parseEther('1'));
        return {
          version: '0.7',
          sender: account.sender,
          fields: account.deployment,
          verificationGasLimit: 10_000n,
          signature: account.by,
        };
      },
    },
    {
      version: '0.7',
      reason: 'AA21',
      code: -32500,
      draft: async () => {
        const account = await counterfactual('0.7', 0n);
        return { version: '0.7', sender: account.sender, fields: account.deployment, signature: account.by };
      },
    },
    {
      version: '0.7',
      reason: 'AA22',
      code: -32503,
      draft: async () => ({ version: '0.7', sender: expiredAccount, verificationGasLimit: 100_000n, signature: '0x' }),
    },
    {
      // SimpleAccount's ECDSA.recover reverts on a signature that is not 65 bytes.
      version: '0.7',
      reason: 'AA23',
      code: -32507,
      draft: async () => ({ version: '0.7', sender: deployed.address, signature: '0xdeadbeef' }),
    },
    {
      version: '0.7',
      reason: 'AA24',
      code: -32507,
      draft: async () => ({ version: '0.7', sender: deployed.address, signature: privateKeyToAccount(generatePrivateKey()) }),
    },
    {
      version: '0.7',
      reason: 'AA25',
      code: -32500,
      draft: async () => ({ version: '0.7', sender: deployed.address, nonce: 5n, signature: owner }),
    },
    {
      version: '0.7',
      reason: 'AA26',
      code: -32500,
      draft: async () => ({ version: '0.7', sender: burningAccount['0.7'], verificationGasLimit: 100_000n, signature: '0x' }),
    },
    {
      version: '0.7',
      reason: 'AA30',
      code: -32501,
      draft: async () => ({
        version: '0.7',
        sender: deployed.address,
        paymaster: paymasterFields(privateKeyToAccount(generatePrivateKey()).address, stubData()),
        signature: owner,
      }),
    },
    {
      version: '0.7',
      reason: 'AA31',
      code: -32508,
      draft: async () => ({
        version: '0.7',
        sender: deployed.address,
        paymaster: paymasterFields(unfundedPaymaster, stubData()),
        signature: owner,
      }),
    },
    {
      version: '0.7',
      reason: 'AA32',
      code: -32503,
      draft: async () => ({
        version: '0.7',
        sender: deployed.address,
        paymaster: async (op) => {
          const { version: _v, ...fields } = await sponsoredPaymasterFields({
            setup: setupOf('0.7'),
            chainId,
            op,
            validUntil: now() - 60,
            validAfter: 0,
          });
          return fields;
        },
        signature: owner,
      }),
    },
    {
      // The VerifyingPaymaster reverts on paymasterData too short to hold its time range and signature.
      version: '0.7',
      reason: 'AA33',
      code: -32501,
      draft: async () => ({
        version: '0.7',
        sender: deployed.address,
        paymaster: paymasterFields(setupOf('0.7').address, '0x1234'),
        signature: owner,
      }),
    },
    {
      // ERC-7677 stub data: the right shape, a signature that recovers to no sponsor.
      version: '0.7',
      reason: 'AA34',
      code: -32507,
      draft: async () => ({
        version: '0.7',
        sender: deployed.address,
        paymaster: paymasterFields(setupOf('0.7').address, stubData()),
        signature: owner,
      }),
    },
    {
      version: '0.7',
      reason: 'AA36',
      code: -32501,
      draft: async () => ({
        version: '0.7',
        sender: deployed.address,
        paymaster: paymasterFields(burningPaymaster, '0x', 50_000n),
        signature: owner,
      }),
    },
    {
      version: '0.6',
      reason: 'AA21',
      code: -32500,
      draft: async () => {
        const account = await counterfactual('0.6', 0n);
        return { version: '0.6', sender: account.sender, fields: account.deployment, signature: account.by };
      },
    },
    {
      version: '0.6',
      reason: 'AA24',
      code: -32507,
      draft: async () => {
        const account = await counterfactual('0.6', parseEther('1'));
        return {
          version: '0.6',
          sender: account.sender,
          fields: account.deployment,
          signature: privateKeyToAccount(generatePrivateKey()),
        };
      },
    },
    {
      version: '0.6',
      reason: 'AA33',
      code: -32501,
      draft: async () => {
        const account = await counterfactual('0.6', parseEther('1'));
        return {
          version: '0.6',
          sender: account.sender,
          fields: { ...account.deployment, paymasterAndData: `${setupOf('0.6').address}1234` },
          signature: account.by,
        };
      },
    },
    {
      version: '0.6',
      reason: 'AA40',
      code: -32500,
      draft: async () => ({ version: '0.6', sender: burningAccount['0.6'], verificationGasLimit: 100_000n, signature: '0x' }),
    },
    {
      // v0.6 says it with require(): an Error("AA41 …"), not a FailedOp.
      version: '0.6',
      reason: 'AA41',
      code: -32500,
      draft: async () => ({
        version: '0.6',
        sender: burningAccount['0.6'],
        verificationGasLimit: 100_000n,
        fields: { paymasterAndData: setupOf('0.6').address },
        signature: '0x',
      }),
    },
  ];

  describe.each(['enough', 'low'] as const)('with %s preVerificationGas', (preVerificationGas) => {
    it.each(cases)(
      '$reason (EntryPoint $version) is $code with its reason',
      async ({ reason, code, draft }) => {
        const built = await draft();
        const answer = await send(built, preVerificationGas);
        expect(answer.error, `v${built.version} ${JSON.stringify(answer)}`).toMatchObject({ code });
        expect(answer.error?.message).toMatch(new RegExp(`^${reason}`));
      },
      30_000,
    );
  });

  it.each(['AA30', 'AA31', 'AA33'])('estimating an op with %s gives the code and reason sending it gives', async (reason) => {
    const entry = cases.find((candidate) => candidate.reason === reason && candidate.version === '0.7')!;
    const answer = await send(await entry.draft(), 'enough', 'eth_estimateUserOperationGas');
    expect(answer.error, JSON.stringify(answer)).toMatchObject({ code: entry.code });
    expect(answer.error?.message).toMatch(new RegExp(`^${reason}`));
  });

  it("viem's bundler client gets the simulation's error (AA21, -32500) for an unfunded account with a low preVerificationGas", async () => {
    const account = await simpleAccount('0.7');
    const client = bundlerClientFor(url, sponsored.key, publicClient);
    const error = await client
      .sendUserOperation({
        account,
        calls: [{ to: account.address, value: 0n }],
        callGasLimit: 50_000n,
        verificationGasLimit: 600_000n,
        preVerificationGas: 1_000n,
        ...(await generousFees(publicClient)),
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
    const draft: Draft = { version: '0.7', sender: deployed.address, verificationGasLimit: 200_000n, signature: owner };
    const low = await send(draft, 'low');
    expect(low.error).toMatchObject({ code: -32602 });
    expect(low.error?.message).toMatch(/^preVerificationGas 1000 is below the \d+ this operation needs/);
    const cheap = await send({ ...draft, fields: { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n } }, 'enough');
    expect(cheap.error).toMatchObject({ code: -32602 });
    expect(cheap.error?.message).toMatch(/^maxFeePerGas 1 is below the current base fee/);
    // An op that fails simulation with fees under the base fee too: the simulation's error.
    const both = await send({ ...draft, signature: '0xdeadbeef', fields: { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n } }, 'low');
    expect(both.error).toMatchObject({ code: -32507 });
    expect(both.error?.message).toMatch(/^AA23/);
  });

  it('a paymaster whose deposit cannot pay for an op beside its ops in the mempool is -32508 (AA31), before the floors', async () => {
    const testClient = createTestClient({ chain: foundry, mode: 'anvil', transport: http(anvilUrl) });
    const paymaster = privateKeyToAccount(generatePrivateKey()).address;
    await testClient.setCode({ address: paymaster, bytecode: acceptingPaymasterCode });
    const senders = [0, 1].map(() => privateKeyToAccount(generatePrivateKey()).address);
    for (const sender of senders) await testClient.setCode({ address: sender, bytecode: acceptingAccountCode });
    const fees = await generousFees(publicClient);
    const draftOf = (sender: Address): Draft => ({
      version: '0.7',
      sender,
      verificationGasLimit: 100_000n,
      fields: fees,
      paymaster: paymasterFields(paymaster, '0x', 50_000n),
      signature: '0x',
    });
    // Gas limits of 10k + 100k + 50k + 150k: one op fits in 1.2 ops' worth, two do not.
    const cost = 310_000n * fees.maxFeePerGas;
    await depositFor([['0.7', paymaster]], (cost * 12n) / 10n);
    expect((await callBundler(url, sponsored.key, 'debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok');
    try {
      const first = await send(draftOf(senders[0]!), 'enough');
      expect(first.error, JSON.stringify(first.error)).toBeUndefined();
      for (const preVerificationGas of ['enough', 'low'] as const) {
        const second = await send(draftOf(senders[1]!), preVerificationGas);
        expect(second.error, preVerificationGas).toMatchObject({ code: -32508, data: { pending: 1 } });
        expect(second.error?.message).toMatch(
          new RegExp(
            `^AA31 paymaster deposit too low: the deposit of the paymaster ${paymaster.toLowerCase()} \\(\\d+ wei\\) cannot pay for this operation .* beside its 1 operations already in the mempool`,
          ),
        );
      }
    } finally {
      await callBundler(url, sponsored.key, 'debug_bundler_clearState', []);
      await callBundler(url, sponsored.key, 'debug_bundler_setBundlingMode', ['auto']);
    }
  });

  it('nothing refused is in the mempool', async () => {
    for (const version of ['0.6', '0.7'] as const) {
      const mempool = await callBundler(url, sponsored.key, 'debug_bundler_dumpMempool', [entryPointOf[version]]);
      expect(mempool.result).toEqual([]);
    }
  });

  it('the same op sent twice is "already known"; another at the same nonce under +10% is "replacement underpriced"', async () => {
    expect((await callBundler(url, sponsored.key, 'debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok');
    try {
      const fees = await generousFees(publicClient);
      const draft: Draft = {
        version: '0.7',
        sender: deployed.address,
        verificationGasLimit: 200_000n,
        fields: fees,
        signature: owner,
      };
      const first = await send(draft, 'enough');
      expect(first.error, JSON.stringify(first.error)).toBeUndefined();
      const again = await send(draft, 'enough');
      expect(again.error).toMatchObject({ code: -32602 });
      expect(again.error?.message).toBe(`already known: the UserOperation ${first.result} is already in the mempool`);
      const bumped = await send({ ...draft, fields: { ...fees, maxFeePerGas: fees.maxFeePerGas + 1n } }, 'enough');
      expect(bumped.error?.message).toMatch(/^replacement underpriced/);
    } finally {
      await callBundler(url, sponsored.key, 'debug_bundler_clearState', []);
      await callBundler(url, sponsored.key, 'debug_bundler_setBundlingMode', ['auto']);
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
      const answer = await callBundler(url, sponsored.key, method, [op, entryPoint07Address]);
      expect(answer.error, method).toMatchObject({ code: -32602, data: { field: `eip7702Auth.${field}` } });
      expect(answer.error?.message).toMatch(new RegExp(`userOperation\\.eip7702Auth\\.${field}`));
    }
  });
});
