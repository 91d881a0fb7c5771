import { toSimpleSmartAccount } from 'permissionless/accounts';
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  type Hex,
  http,
  type PublicClient,
  parseEther,
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
import type { AnyUserOperation } from '../../src/bundler/user-operation.ts';
import { entryPointV06Abi, entryPointV07Abi } from '../../src/erc4337/contracts/abis.ts';
import { installVerifyingPaymasters } from '../../src/paymaster/devnet-paymasters.ts';
import { stubPaymasterFields } from '../../src/paymaster/paymaster-data.ts';
import type { PaymasterSetup } from '../../src/paymaster/paymaster-setup.ts';
import { type SponsoredChain, startSponsoredChain } from '../paymaster/support.ts';
import {
  bundlerClientFor,
  bundlerUrlOf,
  callBundler,
  fund,
  generousFees,
  type JsonRpcAnswer,
  type SimpleAccount,
} from './support.ts';

export type Version = '0.6' | '0.7';
export const entryPointOf = { '0.6': entryPoint06Address, '0.7': entryPoint07Address } as const;
export const chainId = foundry.id;

/** Far above what any op here needs (its floor is ~50k), and far below it. */
const preVerificationGasOf = { enough: 150_000n, low: 1_000n } as const;
export type PreVerificationGas = keyof typeof preVerificationGasOf;

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
export const acceptingPaymasterCode: Hex = '0x604060005260606000f3';
/** Answers `validateUserOp` with validUntil = 1 (1970): an account whose own time range has passed (AA22). */
const expiredAccountCode: Hex = '0x600160a01b60005260206000f3';

/** An op to send, all but its gas fields, fees and signature (`send` fills them). */
export interface Draft {
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

/** The service with its bundler, the devnet paymasters, and the contracts each broken op needs. */
export interface ErrorBench {
  sponsored: SponsoredChain;
  publicClient: PublicClient;
  url: string;
  anvilUrl: string;
  owner: PrivateKeyAccount;
  /** A SimpleAccount v0.7 of `owner`, deployed (its op 0 landed): the sender of the cases that need one on chain. */
  deployed: SimpleAccount;
  /** Its factory fields, read before it was deployed (viem leaves them out once the account has code). */
  deployedFactory: { factory: Address; factoryData: Hex };
  /** A VerifyingPaymaster nobody funded (another signer: another CREATE2 address). */
  unfundedPaymaster: Address;
  burningPaymaster: Address;
  burningAccount: Record<Version, Address>;
  expiredAccount: Address;
  setupOf: (version: Version) => PaymasterSetup;
  simpleAccount: (version: Version, owner?: PrivateKeyAccount) => ReturnType<typeof toSimpleSmartAccount>;
  counterfactual: (
    version: Version,
    balance: bigint,
  ) => Promise<{ sender: Address; by: PrivateKeyAccount; deployment: Record<string, Hex> }>;
  depositFor: (entries: [Version, Address][], value?: bigint) => Promise<void>;
  /** v0.7 paymaster fields naming `paymaster` with `paymasterData`, its verification limit 30k unless told. */
  paymasterFields: (paymaster: Address, paymasterData: Hex, verificationGas?: bigint) => () => Promise<Record<string, unknown>>;
  /** ERC-7677 stub data of the devnet paymaster: the right shape, a signature that recovers to no sponsor. */
  stubData: () => Hex;
  /** The op of `draft` with the given preVerificationGas, signed and sent (or estimated): the JSON-RPC answer. */
  send: (draft: Draft, preVerificationGas: PreVerificationGas, method?: string) => Promise<JsonRpcAnswer>;
}

export async function startErrorBench(): Promise<ErrorBench> {
  const sponsored = await startSponsoredChain();
  const anvilUrl = sponsored.chain.service.anvil.url;
  const publicClient = createPublicClient({ chain: foundry, transport: http(anvilUrl) }) as PublicClient;
  const url = bundlerUrlOf(sponsored.chain.service.url);
  const testClient = createTestClient({ chain: foundry, mode: 'anvil', transport: http(anvilUrl) });
  const setupOf = (version: Version): PaymasterSetup => sponsored.setups[version]!;

  const simpleAccount = (version: Version, by: PrivateKeyAccount = privateKeyToAccount(generatePrivateKey())) =>
    toSimpleSmartAccount({
      client: publicClient,
      owner: by,
      entryPoint: { address: entryPointOf[version], version },
      nonceKey: 0n,
    });

  const counterfactual = async (version: Version, balance: bigint) => {
    const by = privateKeyToAccount(generatePrivateKey());
    const account = await simpleAccount(version, by);
    if (balance > 0n) await fund(anvilUrl, [account.address], balance);
    const { factory, factoryData } = (await account.getFactoryArgs()) as { factory: Address; factoryData: Hex };
    const deployment: Record<string, Hex> =
      version === '0.7' ? { factory, factoryData } : { initCode: `${factory}${factoryData.slice(2)}` as Hex };
    return { sender: account.address, by, deployment };
  };

  const depositFor = async (entries: [Version, Address][], value = parseEther('1')) => {
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
  };

  const nonceOf = (version: Version, sender: Address) =>
    publicClient.readContract({
      address: entryPointOf[version],
      abi: entryPointV07Abi,
      functionName: 'getNonce',
      args: [sender, 0n],
    });

  const send = async (draft: Draft, preVerificationGas: PreVerificationGas, method = 'eth_sendUserOperation') => {
    let op = {
      sender: draft.sender,
      nonce: draft.nonce ?? (await nonceOf(draft.version, draft.sender)),
      callData: '0x',
      callGasLimit: 10_000n,
      verificationGasLimit: draft.verificationGasLimit ?? 600_000n,
      preVerificationGas: preVerificationGasOf[preVerificationGas],
      ...(await generousFees(publicClient)),
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
  };

  const owner = privateKeyToAccount(generatePrivateKey());
  const deployed = (await simpleAccount('0.7', owner)) as SimpleAccount;
  const deployedFactory = (await deployed.getFactoryArgs()) as { factory: Address; factoryData: Hex };
  if (!deployedFactory.factory) throw new Error('a counterfactual account has factory fields');
  await fund(anvilUrl, [deployed.address], parseEther('1'));
  const bundler = bundlerClientFor(url, sponsored.key, publicClient);
  const first = await bundler.sendUserOperation({
    account: deployed,
    calls: [{ to: deployed.address, value: 0n }],
    ...(await generousFees(publicClient)),
  });
  if (!(await bundler.waitForUserOperationReceipt({ hash: first, timeout: 30_000 })).success) throw new Error('op 0 failed');

  const [unfundedPaymaster] = await installVerifyingPaymasters(anvilUrl, [
    { version: '0.7', entryPoint: entryPoint07Address, signer: privateKeyToAccount(generatePrivateKey()).address },
  ]);
  const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;
  const burningPaymaster = randomAddress();
  const burningAccount = { '0.6': randomAddress(), '0.7': randomAddress() };
  const expiredAccount = randomAddress();
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

  return {
    sponsored,
    publicClient,
    url,
    anvilUrl,
    owner,
    deployed,
    deployedFactory,
    unfundedPaymaster: unfundedPaymaster!,
    burningPaymaster,
    burningAccount,
    expiredAccount,
    setupOf,
    simpleAccount,
    counterfactual,
    depositFor,
    paymasterFields:
      (paymaster, paymasterData, verificationGas = 30_000n) =>
      async () => ({
        paymaster,
        paymasterData,
        paymasterVerificationGasLimit: verificationGas,
        paymasterPostOpGasLimit: 0n,
      }),
    stubData: () => (stubPaymasterFields(setupOf('0.7')) as { paymasterData: Hex }).paymasterData,
    send,
  };
}
