import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { implementation, sendFromEoa } from '../../examples/eip7702-account.ts';
import { createWallet, sendWithPermissionless, sendWithViem } from '../../examples/smart-wallet.ts';
import { delegationDesignator } from '../../src/bundler/eip7702-authorization.ts';
import { type BundlerChain, startBundlerChain } from './start-bundler.ts';

/** The examples of docs/smart-wallets.md and docs/bundler.md, run as written. */
describe('examples/smart-wallet.ts and examples/eip7702-account.ts', () => {
  let { chain, key } = {} as BundlerChain;
  beforeAll(async () => {
    ({ chain, key } = await startBundlerChain());
  }, 120_000);
  afterAll(() => chain?.service.stop());

  it('creates a wallet, then sends with viem’s bundler client and with permissionless', async () => {
    const endpoint = { baseUrl: chain.service.url, apiKey: key };
    const ownerKey = generatePrivateKey();
    const wallet = await createWallet(endpoint, privateKeyToAccount(ownerKey).address);
    expect(wallet.status).toBe('counterfactual');
    await chain.wallet.sendTransaction({ to: wallet.address, value: parseEther('1') });
    const recipient = privateKeyToAccount(generatePrivateKey()).address;

    const viemResult = await sendWithViem(endpoint, ownerKey, recipient, 1000n);
    expect(viemResult).toMatchObject({ account: wallet.address, success: true });
    const permissionlessResult = await sendWithPermissionless(endpoint, ownerKey, recipient, 2000n);
    expect(permissionlessResult.account).toBe(wallet.address);
    expect(permissionlessResult.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain.publicClient.getBalance({ address: recipient })).toBe(3000n);
  });

  it('an EOA delegates to Simple7702AccountV07 with its first op and sends a second without an authorization', async () => {
    const endpoint = { baseUrl: chain.service.url, apiKey: key };
    const ownerKey = generatePrivateKey();
    const funding = await chain.wallet.sendTransaction({ to: privateKeyToAccount(ownerKey).address, value: parseEther('1') });
    await chain.publicClient.waitForTransactionReceipt({ hash: funding });
    const recipient = privateKeyToAccount(generatePrivateKey()).address;

    const first = await sendFromEoa(endpoint, ownerKey, recipient, 1000n);
    expect(first).toMatchObject({ withAuthorization: true, success: true, code: delegationDesignator(implementation) });
    const second = await sendFromEoa(endpoint, ownerKey, recipient, 2000n);
    expect(second).toMatchObject({ withAuthorization: false, success: true });
    expect(await chain.publicClient.getBalance({ address: recipient })).toBe(3000n);
  });
});
