import { to7702SimpleSmartAccount } from 'permissionless/accounts';
import { createWalletClient, http, type PublicClient, parseEther, type SignedAuthorization } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { signAuthorization } from 'viem/actions';
import { foundry } from 'viem/chains';
import { erc4337Addresses } from '../../src/erc4337/contracts/abis.ts';
import { type BundlerService, startBundlerService } from './start-bundler.ts';
import { fund } from './support.ts';

/** Blockyard's Simple7702AccountV07: what the EOAs of these tests delegate to. */
export const implementation = erc4337Addresses.v07.simple7702Account;

/**
 * permissionless's EIP-7702 SimpleAccount pointed at EntryPoint v0.7 and Blockyard's implementation.
 * Its types allow only v0.8 with eip7702; at run time it encodes v0.7's execute/executeBatch and signs
 * v0.7's userOpHash as a personal message, which is what Simple7702AccountV07 checks.
 */
export function new7702Account(publicClient: PublicClient, owner: PrivateKeyAccount) {
  return to7702SimpleSmartAccount({
    client: publicClient,
    owner,
    entryPoint: { address: entryPoint07Address, version: '0.7' as '0.8' },
    accountLogicAddress: implementation,
  });
}

export type Account7702 = Awaited<ReturnType<typeof new7702Account>>;

export interface Eip7702Bundler extends BundlerService {
  /** A fresh EOA with 1 ETH (it pays its own ops), never delegated, and its account. */
  freshEoa(): Promise<{ owner: PrivateKeyAccount; account: Account7702 }>;
  /** The EOA's authorization of the implementation (its next nonce and this chain unless told). */
  authorize(signer: PrivateKeyAccount, options?: { chainId?: number; nonce?: number }): Promise<SignedAuthorization>;
}

/** `startBundlerService` with the means to make EOAs that send EIP-7702 ops to EntryPoint v0.7. */
export async function startEip7702Bundler(): Promise<Eip7702Bundler> {
  const started = await startBundlerService();
  const anvilUrl = started.service.anvil.url;
  return {
    ...started,
    async freshEoa() {
      const owner = privateKeyToAccount(generatePrivateKey());
      await fund(anvilUrl, [owner.address], parseEther('1'));
      return { owner, account: await new7702Account(started.publicClient, owner) };
    },
    authorize(signer, options = {}) {
      const wallet = createWalletClient({ account: signer, chain: foundry, transport: http(anvilUrl) });
      return signAuthorization(wallet, { address: implementation, ...options });
    },
  };
}
