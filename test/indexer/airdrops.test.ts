import { describe, expect, it } from 'vitest';
import { airdropsOf } from '../../src/indexer/airdrops.ts';
import { type BlockFacts, type NftTransferFact, zeroAddress } from '../../src/indexer/decode-block.ts';

const [alice, bob, nft] = ['a', 'b', 'c'].map((digit) => `0x${digit.repeat(40)}`) as [string, string, string];

const tx = (hash: string, from: string) => ({
  hash,
  index: 0,
  from,
  to: nft,
  value: 0n,
  status: 1,
  contractCreated: null,
  selector: null,
});
const transfer = (logIndex: number, hash: string, from: string, to: string, batchIndex = 0): NftTransferFact => ({
  contract: nft,
  standard: 'ERC1155',
  operator: hash === '0x01' ? bob : alice,
  from,
  to,
  tokenId: BigInt(logIndex),
  amount: 1n,
  logIndex,
  batchIndex,
  transactionHash: hash,
});

function block(nftTransfers: NftTransferFact[]): BlockFacts {
  return {
    number: 7,
    hash: '0xbb',
    parentHash: '0xaa',
    timestamp: new Date(0),
    gasUsed: 0n,
    transactions: [tx('0x01', bob), tx('0x02', alice)],
    logs: [],
    tokenTransfers: [],
    nftTransfers,
    nativeTransfers: [],
    internalTransfers: [],
  };
}

describe('airdropsOf', () => {
  it('takes the mints whose transaction another address sent, each item of a batch', () => {
    const airdrop = transfer(1, '0x01', zeroAddress, alice);
    const batchItem = transfer(1, '0x01', zeroAddress, alice, 1);
    const found = airdropsOf(
      block([
        airdrop,
        batchItem,
        transfer(2, '0x02', zeroAddress, alice),
        transfer(3, '0x01', alice, bob),
        transfer(4, '0x09', zeroAddress, alice),
      ]),
    );
    expect(found).toEqual([
      { block: 7, transfer: airdrop },
      { block: 7, transfer: batchItem },
    ]);
  });

  it('finds none in a block without mints to others', () => {
    expect(airdropsOf(block([transfer(1, '0x01', zeroAddress, bob), transfer(2, '0x02', bob, alice)]))).toEqual([]);
  });
});
