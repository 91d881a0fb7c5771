import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  concat,
  createPublicClient,
  createWalletClient,
  getAddress,
  type Hex,
  http,
  parseEther,
  parseEventLogs,
} from 'viem';
import { toPackedUserOperation } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../../src/chains/devnet.ts';
import {
  entryPointV06Abi,
  entryPointV07Abi,
  erc4337Addresses,
  simpleAccountFactoryAbi,
  simpleAccountV06Abi,
  simpleAccountV07Abi,
} from '../../../src/erc4337/contracts/abis.ts';
import {
  entryPointSimulationsV07Abi,
  getEntryPointSimulationsV07Code,
} from '../../../src/erc4337/contracts/entry-point-simulations.ts';
import { installErc4337Contracts } from '../../../src/erc4337/contracts/install.ts';
import { startTestAnvil } from '../../support/anvil.ts';
import {
  createAccountCall,
  executorAccount,
  firstUserOperationV06,
  firstUserOperationV07,
  handleOps,
} from '../../support/user-operations.ts';

const receiptTimeout = { timeout: 10_000, pollingInterval: 50 } as const;

describe('installErc4337Contracts', () => {
  let anvil: Devnet;
  const clients = () => {
    const transport = http(anvil.url, { timeout: 10_000, retryCount: 0 });
    return {
      publicClient: createPublicClient({ chain: foundry, transport }),
      wallet: createWalletClient({ account: executorAccount, chain: foundry, transport }),
    };
  };

  beforeAll(async () => {
    anvil = await startTestAnvil();
  });
  afterAll(() => anvil?.stop());

  it('deploys the contracts at their canonical addresses, once', async () => {
    const { publicClient } = clients();
    const addresses = [
      ...[erc4337Addresses.v06, erc4337Addresses.v07].flatMap(({ entryPoint, factory }) => [entryPoint, factory]),
      erc4337Addresses.v06.simple7702Account,
      erc4337Addresses.v07.simple7702Account,
    ];
    for (const address of addresses) expect(await publicClient.getCode({ address })).toBeUndefined();

    expect(await installErc4337Contracts(anvil.url)).toEqual(erc4337Addresses);
    for (const address of addresses) expect((await publicClient.getCode({ address }))?.length).toBeGreaterThan(1_000);

    const block = await publicClient.getBlockNumber({ cacheTime: 0 });
    const started = performance.now();
    expect(await installErc4337Contracts(anvil.url)).toEqual(erc4337Addresses);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(await publicClient.getBlockNumber({ cacheTime: 0 })).toBe(block);
  });

  it.each(['v06', 'v07'] as const)('%s: each factory builds accounts for its own EntryPoint', async (version) => {
    const { publicClient } = clients();
    const { entryPoint, factory } = erc4337Addresses[version];
    const implementation = await publicClient.readContract({
      address: factory,
      abi: simpleAccountFactoryAbi,
      functionName: 'accountImplementation',
    });
    const abi = version === 'v06' ? simpleAccountV06Abi : simpleAccountV07Abi;
    expect(await publicClient.readContract({ address: implementation, abi, functionName: 'entryPoint' })).toBe(entryPoint);
  });

  it.each(['v06', 'v07'] as const)('%s: factory.getAddress equals EntryPoint.getSenderAddress(initCode)', async (version) => {
    const { publicClient } = clients();
    const { entryPoint, factory } = erc4337Addresses[version];
    const owner = privateKeyToAccount(generatePrivateKey()).address;
    for (const salt of [0n, 7n, 2n ** 255n]) {
      const predicted = await publicClient.readContract({
        address: factory,
        abi: simpleAccountFactoryAbi,
        functionName: 'getAddress',
        args: [owner, salt],
      });
      const initCode = concat([factory, createAccountCall(owner, salt)]);
      expect(await senderAddressOf(entryPoint, initCode)).toBe(predicted);
    }
  });

  async function senderAddressOf(entryPoint: Address, initCode: Hex): Promise<Address> {
    const { publicClient } = clients();
    // Both versions revert with SenderAddressResult(address): the answer is in the revert data.
    const error = await publicClient
      .simulateContract({ address: entryPoint, abi: entryPointV07Abi, functionName: 'getSenderAddress', args: [initCode] })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    const reverted = error instanceof BaseError ? error.walk((cause) => cause instanceof ContractFunctionRevertedError) : null;
    if (!(reverted instanceof ContractFunctionRevertedError) || reverted.data?.errorName !== 'SenderAddressResult') {
      throw new Error(`getSenderAddress did not revert with SenderAddressResult: ${String(error)}`);
    }
    return reverted.data.args?.[0] as Address;
  }

  it('v07: a UserOperation with initCode deploys a SimpleAccount and runs its call', async () => {
    const { publicClient } = clients();
    const { entryPoint, factory, owner, recipient, sender, nonce } = await freshAccount('v07');
    const { op, hash } = await firstUserOperationV07({ owner, sender, salt: 0n, nonce, to: recipient, value: 1n });
    const packed = toPackedUserOperation(op);

    // The bundler's path: EntryPointSimulations in place of the EntryPoint's code, through eth_call.
    const { result: validation } = await publicClient.simulateContract({
      address: entryPoint,
      abi: entryPointSimulationsV07Abi,
      functionName: 'simulateValidation',
      args: [packed],
      stateOverride: [{ address: entryPoint, code: getEntryPointSimulationsV07Code() }],
    });
    expect(validation.returnInfo.accountValidationData).toBe(0n);
    expect(validation.returnInfo.preOpGas).toBeGreaterThan(0n);

    const receipt = await handleOps(anvil.url, { version: 'v07', op });
    expect(receipt.status).toBe('success');
    const events = parseEventLogs({ abi: entryPointV07Abi, logs: receipt.logs });
    expect(events.find((event) => event.eventName === 'AccountDeployed')?.args).toMatchObject({
      sender,
      factory,
      userOpHash: hash,
    });
    expect(events.find((event) => event.eventName === 'UserOperationEvent')?.args).toMatchObject({
      sender,
      userOpHash: hash,
      success: true,
    });
    expect(await publicClient.getBalance({ address: recipient })).toBe(1n);
    expect(await publicClient.readContract({ address: sender, abi: simpleAccountV07Abi, functionName: 'owner' })).toBe(
      owner.address,
    );
  });

  it('v06: a UserOperation with initCode deploys a SimpleAccount and runs its call', async () => {
    const { publicClient } = clients();
    const { entryPoint, factory, owner, recipient, sender, nonce } = await freshAccount('v06');
    const { op, hash } = await firstUserOperationV06({ owner, sender, salt: 0n, nonce, to: recipient, value: 1n });

    // v0.6 simulates in the EntryPoint itself; the answer is a ValidationResult revert.
    const simulation = await publicClient
      .simulateContract({ address: entryPoint, abi: entryPointV06Abi, functionName: 'simulateValidation', args: [op] })
      .then(
        () => undefined,
        (caught: unknown) =>
          caught instanceof BaseError ? caught.walk((cause) => cause instanceof ContractFunctionRevertedError) : null,
      );
    expect(simulation).toBeInstanceOf(ContractFunctionRevertedError);
    const { data } = simulation as ContractFunctionRevertedError;
    expect(data?.errorName).toBe('ValidationResult');
    expect(data?.args?.[0]).toMatchObject({ sigFailed: false });

    const receipt = await handleOps(anvil.url, { version: 'v06', op });
    expect(receipt.status).toBe('success');
    const events = parseEventLogs({ abi: entryPointV06Abi, logs: receipt.logs });
    expect(events.find((event) => event.eventName === 'AccountDeployed')?.args).toMatchObject({
      sender,
      factory,
      userOpHash: hash,
    });
    expect(events.find((event) => event.eventName === 'UserOperationEvent')?.args).toMatchObject({
      sender,
      userOpHash: hash,
      success: true,
    });
    expect(await publicClient.getBalance({ address: recipient })).toBe(1n);
    expect(await publicClient.readContract({ address: sender, abi: simpleAccountV06Abi, functionName: 'owner' })).toBe(
      owner.address,
    );
  });

  /** A new owner, a recipient, and the owner's funded counterfactual account (salt 0) on `version`'s factory with its EntryPoint nonce. */
  async function freshAccount(version: 'v06' | 'v07') {
    const { publicClient } = clients();
    const { entryPoint, factory } = erc4337Addresses[version];
    const owner = privateKeyToAccount(generatePrivateKey());
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const sender = await fundedSender(factory, owner.address);
    const nonce = await publicClient.readContract({
      address: entryPoint,
      abi: version === 'v06' ? entryPointV06Abi : entryPointV07Abi,
      functionName: 'getNonce',
      args: [sender, 0n],
    });
    return { entryPoint, factory, owner, recipient, sender, nonce };
  }

  /** The counterfactual account of `owner` (salt 0), given ETH to pay for its first operation. */
  async function fundedSender(factory: Address, owner: Address): Promise<Address> {
    const { publicClient, wallet } = clients();
    const sender = await publicClient.readContract({
      address: factory,
      abi: simpleAccountFactoryAbi,
      functionName: 'getAddress',
      args: [owner, 0n],
    });
    const hash = await wallet.sendTransaction({ to: sender, value: parseEther('1') });
    expect((await publicClient.waitForTransactionReceipt({ hash, ...receiptTimeout })).status).toBe('success');
    expect(await publicClient.getCode({ address: sender })).toBeUndefined();
    return getAddress(sender);
  }
});
