import {
  BaseError,
  ContractFunctionRevertedError,
  concat,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  keccak256,
  parseAbi,
  parseEther,
  toHex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../../src/chains/devnet.ts';
import { erc4337Addresses, simpleAccountV07Abi } from '../../../src/erc4337/contracts/abis.ts';
import { installErc4337Contracts } from '../../../src/erc4337/contracts/install.ts';
import { startTestAnvil } from '../../support/anvil.ts';

const accountAbi = [
  ...simpleAccountV07Abi,
  ...parseAbi([
    'function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)',
    'function supportsInterface(bytes4 interfaceId) view returns (bool)',
    'error NotFromEntryPointOrSelf(address caller)',
  ]),
];
/** anvil's account #0 pays for the delegating transaction: the EOA needs no ETH to be delegated. */
const relayer = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const implementation = erc4337Addresses.v07.simple7702Account;

describe('Simple7702AccountV07 (an EOA delegated with EIP-7702)', () => {
  let anvil: Devnet;
  const owner = privateKeyToAccount(generatePrivateKey());
  const clients = () => {
    const transport = http(anvil.url, { timeout: 10_000, retryCount: 0 });
    return {
      publicClient: createPublicClient({ chain: foundry, transport }),
      relayerWallet: createWalletClient({ account: relayer, chain: foundry, transport }),
      ownerWallet: createWalletClient({ account: owner, chain: foundry, transport }),
    };
  };

  beforeAll(async () => {
    anvil = await startTestAnvil();
    await installErc4337Contracts(anvil.url);
    const { publicClient, relayerWallet } = clients();
    // A type-4 transaction from another account carries the EOA's authorization.
    const authorization = await owner.signAuthorization({ address: implementation, chainId: foundry.id, nonce: 0 });
    const hash = await relayerWallet.sendTransaction({
      to: owner.address,
      value: parseEther('1'),
      authorizationList: [authorization],
    });
    expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
  }, 60_000);
  afterAll(() => anvil?.stop());

  it('gives the EOA the delegation designator, and the EntryPoint v0.7 it serves', async () => {
    const { publicClient } = clients();
    // The delegation designator: 0xef0100 and the implementation's address.
    expect(await publicClient.getCode({ address: owner.address })).toBe(concat(['0xef0100', implementation]).toLowerCase());
    expect(await publicClient.readContract({ address: owner.address, abi: accountAbi, functionName: 'entryPoint' })).toBe(
      erc4337Addresses.v07.entryPoint,
    );
    expect(await publicClient.getBalance({ address: owner.address })).toBe(parseEther('1'));
  });

  it('executes calls the EOA sends to itself (batch with values); refuses them from anyone else', async () => {
    const { publicClient, ownerWallet, relayerWallet } = clients();
    const [first, second] = [
      privateKeyToAccount(generatePrivateKey()).address,
      privateKeyToAccount(generatePrivateKey()).address,
    ];
    const hash = await ownerWallet.writeContract({
      address: owner.address,
      abi: accountAbi,
      functionName: 'executeBatch',
      args: [
        [first, second],
        [1n, 2n],
        ['0x', '0x'],
      ],
    });
    expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await publicClient.getBalance({ address: first })).toBe(1n);
    expect(await publicClient.getBalance({ address: second })).toBe(2n);

    const refused = await publicClient
      .simulateContract({
        account: relayerWallet.account,
        address: owner.address,
        abi: accountAbi,
        functionName: 'execute',
        args: [first, 1n, '0x'],
      })
      .then(
        () => undefined,
        (error: unknown) =>
          error instanceof BaseError ? error.walk((cause) => cause instanceof ContractFunctionRevertedError) : null,
      );
    expect((refused as ContractFunctionRevertedError | null)?.data?.errorName).toBe('NotFromEntryPointOrSelf');
  });

  it('still takes plain transfers and calls with unknown data, like an EOA', async () => {
    const { publicClient, relayerWallet } = clients();
    const before = await publicClient.getBalance({ address: owner.address });
    const hash = await relayerWallet.sendTransaction({ to: owner.address, value: 5n, data: '0x12345678' });
    expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await publicClient.getBalance({ address: owner.address })).toBe(before + 5n);
  });

  it('answers ERC-1271 for hashes the EOA key signed, and ERC-165 for the token receivers', async () => {
    const { publicClient } = clients();
    const hash = keccak256(toHex('blockyard'));
    const check = (signature: Hex) =>
      publicClient.readContract({
        address: owner.address,
        abi: accountAbi,
        functionName: 'isValidSignature',
        args: [hash, signature],
      });
    expect(await check(await owner.sign({ hash }))).toBe('0x1626ba7e');
    expect(await check(await privateKeyToAccount(generatePrivateKey()).sign({ hash }))).toBe('0xffffffff');
    expect(await check('0x1234')).toBe('0xffffffff');
    const supports = (id: Hex) =>
      publicClient.readContract({ address: owner.address, abi: accountAbi, functionName: 'supportsInterface', args: [id] });
    expect(await supports('0x150b7a02')).toBe(true);
    expect(await supports('0x4e2312e0')).toBe(true);
    expect(await supports('0xdeadbeef')).toBe(false);
  });
});
