import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAccounts } from '../../src/demo/demo-plan.ts';
import { type AlchemyDemo, startAlchemyDemo } from './support/alchemy-demo.ts';

/**
 * Alchemy's NFT API v3 answers every address in its EIP-55 checksum form (its v2-to-v3 migration
 * guide: "All addresses in V3 are checksummed"). alchemy-sdk relies on it: verifyNftOwnership keys its
 * map by the addresses given and flips the answer's contractAddress to true.
 */
describe('Alchemy v3 NFT answers: checksummed addresses, through alchemy-sdk', () => {
  let t: AlchemyDemo;

  beforeAll(async () => {
    t = await startAlchemyDemo();
  }, 180_000);
  afterAll(() => t?.chain.service.stop());

  it('verifyNftOwnership with checksummed contracts answers one key each, true where the owner holds tokens', async () => {
    const [nft, items, token] = [getAddress(t.demo.nft), getAddress(t.demo.items), getAddress(t.demo.token)];
    const owned = await t.alchemy.nft.verifyNftOwnership(demoAccounts.dev, [nft, items, token]);
    expect(owned).toEqual({ [nft]: true, [items]: true, [token]: false });
    expect(await t.alchemy.nft.verifyNftOwnership(demoAccounts.dev, nft)).toBe(true);
  });

  it('writes contract addresses and owners checksummed in every v3 answer', async () => {
    const nft = getAddress(t.demo.nft);
    const base = await t.alchemy.nft.getNftsForOwner(demoAccounts.dev, { omitMetadata: true });
    expect(new Set(base.ownedNfts.map((n) => n.contractAddress))).toEqual(new Set([nft, getAddress(t.demo.items)]));
    const full = await t.alchemy.nft.getNftsForOwner(demoAccounts.dev);
    expect(full.ownedNfts.every((n) => n.contract.address === getAddress(n.contract.address))).toBe(true);
    expect((await t.alchemy.nft.getContractMetadata(t.demo.nft.toLowerCase())).address).toBe(nft);
    expect((await t.alchemy.nft.getNftMetadata(t.demo.nft, 1)).contract.address).toBe(nft);
    const contracts = await t.alchemy.nft.getContractsForOwner(demoAccounts.dev);
    expect(contracts.contracts.every((c) => c.address === getAddress(c.address))).toBe(true);
    const { owners } = await t.alchemy.nft.getOwnersForNft(t.demo.nft, 1);
    expect(owners.length).toBeGreaterThan(0);
    expect(owners.every((owner) => owner === getAddress(owner))).toBe(true);
    const holders = await t.alchemy.nft.getOwnersForContract(t.demo.nft);
    expect(holders.owners.every((owner) => owner === getAddress(owner))).toBe(true);
    const balances = await t.alchemy.nft.getOwnersForContract(t.demo.nft, { withTokenBalances: true });
    expect(balances.owners.every((o) => o.ownerAddress === getAddress(o.ownerAddress))).toBe(true);
    expect((await t.alchemy.nft.summarizeNftAttributes(t.demo.nft)).contractAddress).toBe(nft);
    const spam = await t.alchemy.nft.getSpamContracts();
    expect(spam.contractAddresses.every((address) => address === getAddress(address))).toBe(true);
  });
});
