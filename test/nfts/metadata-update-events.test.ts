import { describe, expect, it } from 'vitest';
import { contractUriUpdateOf, metadataUpdateOf } from '../../src/nfts/metadata-update-events.ts';

const single = '0xf8e1a15aba9398e019f0b49df1a4fde98ee17ae345cb5f6b5e2c27f5033e8ce7';
const batch = '0x6bd5c950a8d8df17f772f5af37cb3655737899cbf903264b9795592da439661c';
const transfer = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const word = (value: bigint) => `0x${value.toString(16).padStart(64, '0')}`;
const contract = '0x00000000000000000000000000000000000000AB';

describe('EIP-4906 updates in a log', () => {
  it('reads MetadataUpdate(tokenId) and BatchMetadataUpdate(from, to), unindexed as the EIP declares them', () => {
    expect(metadataUpdateOf({ address: contract, topics: [single], data: word(7n) })).toEqual({
      contract: contract.toLowerCase(),
      tokenId: 7n,
    });
    const max = 2n ** 256n - 1n;
    expect(metadataUpdateOf({ address: contract, topics: [batch], data: `${word(0n)}${word(max).slice(2)}` })).toEqual({
      contract: contract.toLowerCase(),
      fromTokenId: 0n,
      toTokenId: max,
    });
  });

  it('reads the ids from the topics when a contract indexed them', () => {
    expect(metadataUpdateOf({ address: contract, topics: [single, word(9n)], data: '0x' })).toMatchObject({ tokenId: 9n });
    expect(metadataUpdateOf({ address: contract, topics: [batch, word(1n), word(5n)], data: '0x' })).toMatchObject({
      fromTokenId: 1n,
      toTokenId: 5n,
    });
  });

  it('ignores other logs and malformed ones', () => {
    expect(metadataUpdateOf({ address: contract, topics: [transfer], data: word(1n) })).toBeUndefined();
    expect(metadataUpdateOf({ address: contract, topics: [], data: '0x' })).toBeUndefined();
    // Too few or too many words, data that is not whole words, a missing field.
    expect(metadataUpdateOf({ address: contract, topics: [single], data: '0x' })).toBeUndefined();
    expect(metadataUpdateOf({ address: contract, topics: [single], data: `${word(1n)}${word(2n).slice(2)}` })).toBeUndefined();
    expect(metadataUpdateOf({ address: contract, topics: [batch], data: word(1n) })).toBeUndefined();
    expect(metadataUpdateOf({ address: contract, topics: [single], data: '0x1234' })).toBeUndefined();
    expect(metadataUpdateOf({ topics: [single], data: word(1n) })).toBeUndefined();
    expect(metadataUpdateOf({ address: contract, topics: [single, 'not a word'], data: '0x' })).toBeUndefined();
  });

  it('reads ERC-7572 ContractURIUpdated() as the emitting contract, and nothing else', () => {
    const updated = '0xa5d4097edda6d87cb9329af83fb3712ef77eeb13738ffe43cc35a4ce305ad962';
    expect(contractUriUpdateOf({ address: contract, topics: [updated], data: '0x' })).toBe(contract.toLowerCase());
    expect(contractUriUpdateOf({ address: contract, topics: [single], data: word(1n) })).toBeUndefined();
    expect(contractUriUpdateOf({ address: contract, topics: [updated, word(1n)], data: '0x' })).toBeUndefined();
  });
});
