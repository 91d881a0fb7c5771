import { type Address, createPublicClient, createWalletClient, http, parseAbi, parseEther } from 'viem';
import { entryPoint06Address, entryPoint07Address, entryPoint08Address } from 'viem/account-abstraction';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import type { Config } from '../../src/config/schema.ts';
import { entryPointV06Abi } from '../../src/erc4337/contracts/abis.ts';
import { create2DeployerAddress, devnetInstaller } from '../../src/erc4337/contracts/create2-deployment.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { devnetPaymasterFunding } from '../../src/paymaster/devnet-paymaster-funding.ts';
import { installVerifyingPaymasters } from '../../src/paymaster/devnet-paymasters.ts';
import { installDevnetPaymasters } from '../../src/paymaster/install-devnet-paymasters.ts';
import { paymasterSetupsOf } from '../../src/paymaster/paymaster-setup.ts';
import { verifyingPaymasterV06Abi, verifyingPaymasterV07Abi } from '../../src/paymaster/verifying-paymaster-abi.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { devnetPaymasters, sponsorAddress } from './support.ts';

const embeddedChain = {
  chain: 'ethereum',
  network: 'devnet',
  chainId: 31337,
  kind: 'evm',
  embedded: true,
  erc4337: { entryPointV06: entryPoint06Address, entryPointV07: entryPoint07Address, entryPointV08: entryPoint08Address },
} as never;
const noSponsorSettings = { gas: { depositWarningWei: parseEther('1') } } as Pick<Config, 'gas'>;

describe('the devnet verifying paymasters', () => {
  let anvil: Devnet;
  const client = () => createPublicClient({ transport: http(anvil.url) });

  beforeAll(async () => {
    anvil = await startTestAnvil();
    await installErc4337Contracts(anvil.url);
  });
  afterAll(() => anvil?.stop());

  it('are at the documented addresses for the devnet sponsor key (anvil #4)', () => {
    expect(devnetPaymasters).toEqual({
      v06: '0xC070cCB7A50c618328BfD3020FFC6f4606b365fd',
      v07: '0x5Ec99f11217ea6E4f9632cbDf5044ea849D63Cb0',
      v08: '0x6E7BAEA21669843d92F6d3f74c8a7f2383d091aC',
    });
    const setups = paymasterSetupsOf({ config: embeddedChain }, noSponsorSettings);
    expect(setups['0.6']).toMatchObject({ version: '0.6', entryPoint: entryPoint06Address, address: devnetPaymasters.v06 });
    expect(setups['0.7']).toMatchObject({ version: '0.7', entryPoint: entryPoint07Address, address: devnetPaymasters.v07 });
    expect(setups['0.8']).toMatchObject({ version: '0.8', entryPoint: entryPoint08Address, address: devnetPaymasters.v08 });
    expect(setups['0.7']?.signer.address).toBe(sponsorAddress);
  });

  it('deployed through the CREATE2 deployer, a paymaster is owned by the deployer', async () => {
    // A second anvil: the installation below must find them untouched.
    const other = await startTestAnvil();
    try {
      await installErc4337Contracts(other.url);
      const installed = await installVerifyingPaymasters(other.url, [
        { version: '0.6', entryPoint: entryPoint06Address, signer: sponsorAddress },
        { version: '0.7', entryPoint: entryPoint07Address, signer: sponsorAddress },
        { version: '0.8', entryPoint: entryPoint08Address, signer: sponsorAddress },
      ]);
      expect(installed).toEqual([devnetPaymasters.v06, devnetPaymasters.v07, devnetPaymasters.v08]);
      const otherClient = createPublicClient({ transport: http(other.url) });
      for (const [address, abi] of [
        [devnetPaymasters.v06, verifyingPaymasterV06Abi],
        [devnetPaymasters.v07, verifyingPaymasterV07Abi],
        [devnetPaymasters.v08, verifyingPaymasterV07Abi],
      ] as const) {
        const owner = await otherClient.readContract({ address, abi, functionName: 'owner' });
        expect(owner.toLowerCase()).toBe(create2DeployerAddress);
        expect(await otherClient.readContract({ address, abi, functionName: 'verifyingSigner' })).toBe(sponsorAddress);
      }
    } finally {
      await other.stop();
    }
  });

  it('installs once: deployed, owned by anvil #9, staked and funded; a second call only reads', async () => {
    const setups = paymasterSetupsOf({ config: embeddedChain }, noSponsorSettings);
    const first = await installDevnetPaymasters(anvil.url, setups);
    expect(first.map((setup) => setup.address)).toEqual([devnetPaymasters.v06, devnetPaymasters.v07, devnetPaymasters.v08]);
    const publicClient = client();
    const nonceAfterFirst = await publicClient.getTransactionCount({ address: devnetInstaller.address });

    for (const [version, address, abi, entryPoint] of [
      ['0.6', devnetPaymasters.v06, verifyingPaymasterV06Abi, entryPoint06Address],
      ['0.7', devnetPaymasters.v07, verifyingPaymasterV07Abi, entryPoint07Address],
      ['0.8', devnetPaymasters.v08, verifyingPaymasterV07Abi, entryPoint08Address],
    ] as const) {
      expect(await publicClient.getCode({ address }), version).toMatch(/^0x6080/);
      expect(await publicClient.readContract({ address, abi, functionName: 'owner' })).toBe(devnetInstaller.address);
      expect(await publicClient.readContract({ address, abi, functionName: 'entryPoint' })).toBe(entryPoint);
      const info = await publicClient.readContract({
        address: entryPoint,
        abi: entryPointV06Abi,
        functionName: 'getDepositInfo',
        args: [address],
      });
      expect(info).toMatchObject({
        deposit: devnetPaymasterFunding.topUpWei,
        staked: true,
        stake: devnetPaymasterFunding.stakeWei,
        unstakeDelaySec: devnetPaymasterFunding.unstakeDelayS,
      });
    }

    const second = await installDevnetPaymasters(anvil.url, setups);
    expect(second.map((setup) => setup.address)).toEqual([devnetPaymasters.v06, devnetPaymasters.v07, devnetPaymasters.v08]);
    expect(await publicClient.getTransactionCount({ address: devnetInstaller.address })).toBe(nonceAfterFirst);
  });

  it('tops the deposit up only when it is below the minimum', async () => {
    const publicClient = client();
    const setups = paymasterSetupsOf({ config: embeddedChain }, noSponsorSettings);
    // The owner (#9) withdraws all but 5 ETH, under the 10 ETH minimum.
    const wallet = createWalletClient({ account: devnetInstaller, transport: http(anvil.url) });
    const hash = await wallet.writeContract({
      chain: null,
      address: devnetPaymasters.v07,
      abi: parseAbi(['function withdrawTo(address withdrawAddress, uint256 amount)']),
      functionName: 'withdrawTo',
      args: [devnetInstaller.address, devnetPaymasterFunding.topUpWei - parseEther('5')],
    });
    await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    const balanceOf = (address: Address, entryPoint: Address) =>
      publicClient.readContract({ address: entryPoint, abi: entryPointV06Abi, functionName: 'balanceOf', args: [address] });
    expect(await balanceOf(devnetPaymasters.v07, entryPoint07Address)).toBe(parseEther('5'));

    await installDevnetPaymasters(anvil.url, setups);
    expect(await balanceOf(devnetPaymasters.v07, entryPoint07Address)).toBe(parseEther('105'));
    expect(await balanceOf(devnetPaymasters.v06, entryPoint06Address)).toBe(devnetPaymasterFunding.topUpWei);
  });
});
