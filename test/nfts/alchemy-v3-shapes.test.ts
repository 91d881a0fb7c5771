import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { factsOfIndexed, v3Nft, v3NftContract } from '../../src/nfts/alchemy-v3/shapes.ts';

const gateways = { ipfsGateway: 'https://ipfs.io/ipfs/', arweaveGateway: 'https://arweave.net/' };
const contract = '0x5fce3397305f68a1d19bd068c67e03c2b02ae4c3';

describe('Alchemy v3 NFT shapes', () => {
  it('a listed token whose metadata was never fetched: nulls, and raw.error says it is queued', () => {
    const nft = v3Nft(
      factsOfIndexed({ contract, tokenId: '7', standard: 'ERC1155', amount: '3', metadata: null }),
      v3NftContract(contract, 'ERC1155', null),
      gateways,
    );
    expect(nft).toMatchObject({
      tokenId: '7',
      tokenType: 'ERC1155',
      name: null,
      tokenUri: null,
      image: { cachedUrl: null, originalUrl: null },
      raw: { tokenUri: null, metadata: {} },
      timeLastUpdated: null,
      // The contract could not be read (upstream down): what the index knows, no invented supply.
      contract: {
        address: getAddress(contract),
        tokenType: 'ERC1155',
        name: null,
        totalSupply: null,
        isSpam: false,
        spamClassifications: [],
      },
    });
    expect(nft.raw.error).toMatch(/not fetched yet/);
  });

  it('gateway URLs for ipfs:// token URIs and images; raw keeps them as the contract and document give them', () => {
    const fetchedAt = new Date('2026-11-27T00:00:00.000Z');
    const nft = v3Nft(
      factsOfIndexed({
        contract,
        tokenId: '1',
        standard: 'ERC721',
        amount: '1',
        metadata: {
          tokenUri: 'ipfs://bafy/1.json',
          name: 'One',
          description: null,
          imageUrl: 'ipfs://bafy/1.png',
          traits: [{ trait_type: 'Level', value: '42' }],
          metadataError: null,
          fetchedAt,
        },
      }),
      v3NftContract(contract, 'ERC721', null),
      gateways,
    );
    expect(nft).toMatchObject({
      tokenUri: 'https://ipfs.io/ipfs/bafy/1.json',
      image: { cachedUrl: 'https://ipfs.io/ipfs/bafy/1.png', originalUrl: 'ipfs://bafy/1.png' },
      raw: {
        tokenUri: 'ipfs://bafy/1.json',
        metadata: { name: 'One', image: 'ipfs://bafy/1.png', attributes: [{ trait_type: 'Level', value: '42' }] },
        error: null,
      },
      timeLastUpdated: fetchedAt.toISOString(),
    });
    expect(nft.raw.metadata).not.toHaveProperty('description');
  });
});
