import type { Address, PublicClient } from 'viem';
import type { PaymasterSetup } from './paymaster-setup.ts';
import { verifyingPaymasterV06Abi, verifyingPaymasterV07Abi } from './verifying-paymaster-abi.ts';

/**
 * VerifyingPaymaster v0.6's `senderNonce(sender)`, which its signature covers and each validation of
 * an op of that sender raises by one: sign with the value the op will meet on chain. (v0.7's
 * paymaster has no such nonce: it signs the op's own nonce only.)
 */
export async function readPaymasterSenderNonce(client: PublicClient, setup: PaymasterSetup, sender: Address): Promise<bigint> {
  return client.readContract({
    address: setup.address,
    abi: verifyingPaymasterV06Abi,
    functionName: 'senderNonce',
    args: [sender],
  });
}

/** The address the paymaster accepts signatures of (`verifyingSigner`, fixed at deployment). */
export async function readVerifyingSigner(client: PublicClient, setup: PaymasterSetup): Promise<Address> {
  const abi = setup.version !== '0.6' ? verifyingPaymasterV07Abi : verifyingPaymasterV06Abi;
  return client.readContract({ address: setup.address, abi, functionName: 'verifyingSigner' });
}
