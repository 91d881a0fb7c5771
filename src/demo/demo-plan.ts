import { type Address, getAddress, keccak256, parseUnits, slice, toHex } from 'viem';
import { apesContractUri, demoApes, itemsContractUri, itemsUriTemplate } from './demo-metadata.ts';

/** anvil's default accounts 0-3 (from its well-known test mnemonic). Account 0 is "the dev account". */
export const demoAccounts = {
  dev: getAddress('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'),
  alice: getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8'),
  bob: getAddress('0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc'),
  carol: getAddress('0x90f79bf6eb2c4f870365e785982e1f101e93b906'),
} as const;

const { dev, alice, bob, carol } = demoAccounts;

export const demoToken = {
  constructorArgs: ['Blockyard Demo USD', 'BDUSD', 6] as const,
  usd: '1.00',
  mint: { to: dev, amount: parseUnits('1000000', 6) },
  transfers: [
    { to: alice, amount: parseUnits('2500', 6) },
    { to: bob, amount: parseUnits('750.25', 6) },
    { to: carol, amount: parseUnits('42', 6) },
  ] satisfies { to: Address; amount: bigint }[],
};

export const demoNft = {
  constructorArgs: ['Blockyard Demo Apes', 'BDAPE'] as const,
  contractUri: apesContractUri,
  apes: demoApes,
  /** Every ape is minted to the dev account, then these leave it. */
  transfers: [
    { to: alice, id: 4n },
    { to: alice, id: 5n },
    { to: bob, id: 6n },
  ] satisfies { to: Address; id: bigint }[],
};

export const demoItems = {
  constructorArgs: ['Blockyard Demo Items', 'BDITEM', itemsUriTemplate] as const,
  contractUri: itemsContractUri,
  /** Minted to the dev account in one batch: 1 coins, 2 potions, 3 the only sword. */
  mint: { ids: [1n, 2n, 3n], amounts: [1000n, 50n, 1n] },
  transfer: { to: alice, id: 1n, amount: 250n },
  batchTransfer: { to: bob, ids: [1n, 2n], amounts: [100n, 5n] },
};

/** anvil's account 5: the demo's airdrop victim, who holds only spam. */
export const spamTarget = getAddress('0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc');

/** Addresses nobody holds a key of, each airdropped the demo's spam once: the fan-out. */
const airdropCrowd: Address[] = Array.from({ length: 24 }, (_, i) =>
  getAddress(slice(keccak256(toHex(`blockyard demo airdrop ${i}`)), 12)),
);

/** A spam-shaped ERC-20 (docs/spam.md): a lure with a domain name, airdropped in one transaction. */
export const demoSpamToken = {
  constructorArgs: ['Claim 5,000 BDUSD at visit-bdusd-bonus.xyz', 'BDUSD-BONUS.XYZ'] as const,
  airdrop: { to: [spamTarget, ...airdropCrowd], amount: parseUnits('5000', 18) },
};

/** A spam-shaped NFT collection: minted into many wallets that did not ask, in one transaction. */
export const demoSpamNft = {
  constructorArgs: ['Reward Pass - visit nft-rewards.xyz', 'REWARD'] as const,
  airdrop: { to: [spamTarget, ...airdropCrowd] },
};
