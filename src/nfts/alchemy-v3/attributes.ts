import type { Address } from 'viem';
import type { Network } from '../../chains/registry.ts';
import { networkName } from '../contract-info.ts';
import type { NftIndexReads } from '../index-reads.ts';
import type { NftService } from '../service.ts';
import { checksummed } from './checksum.ts';

/** Tokens counted at most for a collection's trait statistics: one request's work stays bounded. */
export const traitSampleCap = 20_000;

const traitKey = (traitType: string, value: string) => JSON.stringify([traitType, value]);

/**
 * Alchemy's summarizeNFTAttributes and computeRarity, from the metadata Blockyard has fetched: the
 * held tokens of the collection (the first 20,000 by token id) whose metadata was read without an
 * error. `totalSupply` says how many were counted, so a collection still being fetched shows it.
 */
export function createV3Attributes(deps: { nfts: NftService; reads: NftIndexReads }) {
  return {
    async summarize(network: Network, contract: Address) {
      // A contract that is not an NFT contract is a 404, as for getContractMetadata.
      await deps.nfts.standard(network, contract);
      const { tokens, counts } = await deps.reads.traitCounts(networkName(network), contract, traitSampleCap);
      const summary: Record<string, Record<string, number>> = {};
      for (const count of counts) {
        summary[count.traitType] ??= {};
        summary[count.traitType]![count.value] = count.tokens;
      }
      return { contractAddress: checksummed(contract), totalSupply: String(tokens), summary };
    },

    /** Each trait of the token with the share (0 to 1) of the counted tokens that have the same value. */
    async rarity(network: Network, contract: Address, tokenId: bigint) {
      const record = await deps.nfts.metadata(network, contract, tokenId);
      const { tokens, counts } = await deps.reads.traitCounts(networkName(network), contract, traitSampleCap);
      const having = new Map(counts.map((count) => [traitKey(count.traitType, count.value), count.tokens]));
      return {
        rarities: record.traits.map((trait) => ({
          traitType: trait.trait_type,
          value: trait.value,
          prevalence: tokens === 0 ? 0 : (having.get(traitKey(trait.trait_type, trait.value)) ?? 0) / tokens,
        })),
      };
    },
  };
}

export type V3Attributes = ReturnType<typeof createV3Attributes>;
