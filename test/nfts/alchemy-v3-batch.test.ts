import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restrictKey } from '../support/key-restrictions.ts';
import { type AlchemyDemo, startAlchemyDemo } from './support/alchemy-demo.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
type Body = any;

const noCode = '0x00000000000000000000000000000000000000b2';
const checksummed = (address: string) => getAddress(address);

/**
 * getNFTMetadataBatch and getContractMetadataBatch (`POST {url}/…`, as alchemy-sdk sends them given only
 * a URL), over the real indexer and the demo's contracts: each item as its single-item method answers it.
 */
describe("Alchemy's NFT API v3 batch methods under the JSON-RPC URL form", () => {
  let t: AlchemyDemo;

  async function post(method: string, body: unknown, base = t.url) {
    const response = await fetch(`${base}/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const answer: Body = await response.json();
    t.check('POST', `/v1/rpc/{chain}/{network}/{apiKey}/${method}`, response.status, answer);
    return { status: response.status, body: answer, remainingCu: Number(response.headers.get('x-ratelimit-remaining-cu')) };
  }
  async function get(method: string, query: string): Promise<Body> {
    const response = await fetch(`${t.url}/${method}?${query}`, { signal: AbortSignal.timeout(10_000) });
    expect(response.status, `${method}?${query}`).toBe(200);
    return response.json();
  }

  beforeAll(async () => {
    t = await startAlchemyDemo();
  }, 180_000);
  afterAll(() => t?.chain.service.stop());

  it('nft.getNftMetadataBatch: each token as getNFTMetadata answers it, in the order asked', async () => {
    const tokens = [
      { contractAddress: t.demo.items, tokenId: '2' },
      { contractAddress: t.demo.nft, tokenId: '3' },
      { contractAddress: t.demo.nft, tokenId: '1' },
    ];
    const batch = await t.alchemy.nft.getNftMetadataBatch(tokens);
    expect(batch.nfts.map((nft) => [nft.contract.address, nft.tokenId])).toEqual(
      tokens.map((token) => [checksummed(token.contractAddress), token.tokenId]),
    );
    const { body } = await post('getNFTMetadataBatch', { tokens });
    for (const [index, token] of tokens.entries()) {
      const single = await get('getNFTMetadata', `contractAddress=${token.contractAddress}&tokenId=${token.tokenId}`);
      expect(body.nfts[index]).toEqual(single);
    }
    expect(batch.nfts.map((nft) => nft.tokenType)).toEqual(['ERC1155', 'ERC721', 'ERC721']);
    expect(batch.nfts[1]!.name).toBe('Blockyard Demo Ape #3');
  });

  it('a token of an address that is no NFT contract is answered in its place; the others still are', async () => {
    const { status, body } = await post('getNFTMetadataBatch', {
      tokens: [
        { contractAddress: t.demo.token, tokenId: '1' },
        { contractAddress: noCode, tokenId: 7 },
        { contractAddress: t.demo.nft, tokenId: '0x2' },
      ],
    });
    expect(status).toBe(200);
    expect(body.nfts.map((nft: Body) => [nft.contract.address, nft.tokenId, nft.tokenType, nft.contract.tokenType])).toEqual([
      [checksummed(t.demo.token), '1', 'NO_SUPPORTED_NFT_STANDARD', 'NO_SUPPORTED_NFT_STANDARD'],
      [noCode, '7', 'NOT_A_CONTRACT', 'NOT_A_CONTRACT'],
      [checksummed(t.demo.nft), '2', 'ERC721', 'ERC721'],
    ]);
    expect(body.nfts[0].raw.error).toMatch(/is not an NFT contract/);
    expect(body.nfts[1].raw.error).toMatch(/^no contract at/);
    expect(body.nfts[2].raw.error).toBeNull();
    expect(body.nfts[2].name).toBe('Blockyard Demo Ape #2');
  });

  it('nft.getContractMetadataBatch: each contract as getContractMetadata answers it, in the order asked', async () => {
    const batch = await t.alchemy.nft.getContractMetadataBatch([t.demo.items, t.demo.nft, t.demo.spamNft]);
    expect(batch.contracts.map((contract) => [contract.address, contract.name, contract.tokenType])).toEqual([
      [checksummed(t.demo.items), 'Blockyard Demo Items', 'ERC1155'],
      [checksummed(t.demo.nft), 'Blockyard Demo Apes', 'ERC721'],
      [checksummed(t.demo.spamNft), expect.any(String), 'ERC721'],
    ]);
    const { body } = await post('getContractMetadataBatch', {
      contractAddresses: [t.demo.nft, t.demo.token, noCode, t.demo.spamNft],
    });
    expect(body.contracts[0]).toEqual(await get('getContractMetadata', `contractAddress=${t.demo.nft}`));
    expect(body.contracts[3]).toEqual(await get('getContractMetadata', `contractAddress=${t.demo.spamNft}`));
    expect(body.contracts[3].isSpam).toBe(true);
    expect(body.contracts.slice(1, 3).map((c: Body) => [c.address, c.tokenType, c.name])).toEqual([
      [checksummed(t.demo.token), 'NO_SUPPORTED_NFT_STANDARD', null],
      [noCode, 'NOT_A_CONTRACT', null],
    ]);
  });

  it('costs the compute units of each item: a batch over the per-second budget can never pass', async () => {
    // 45 CU a second: 4 tokens (40 CU) pass, 5 tokens (50 CU) are refused for good, naming the items.
    const small = await t.chain.service.createKey({ plan: 'free', limits: { cups: 45, rps: null } });
    const smallUrl = `${t.chain.service.url}/v1/rpc/ethereum/devnet/${small.key}`;
    const tokens = (n: number) => Array.from({ length: n }, (_, i) => ({ contractAddress: t.demo.nft, tokenId: String(i + 1) }));
    const four = await post('getNFTMetadataBatch', { tokens: tokens(4) }, smallUrl);
    expect(four.status).toBe(200);
    expect(four.remainingCu).toBe(5);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const five = await post('getNFTMetadataBatch', { tokens: tokens(5) }, smallUrl);
    expect(five.status).toBe(400);
    expect(five.body.error.message).toMatch(/^invalid parameter 'tokens': this request costs 50 compute units, more than the 45/);
    const contracts = await post('getContractMetadataBatch', { contractAddresses: Array(5).fill(t.demo.nft) }, smallUrl);
    expect(contracts.body.error.message).toMatch(/^invalid parameter 'contractAddresses': this request costs 50 compute units/);
    // refreshCache fetches again: 50 CU a token, so even one token is over 45; without it, 10.
    const refreshOne = await post('getNFTMetadataBatch', { tokens: tokens(1), refreshCache: true }, smallUrl);
    expect(refreshOne.body.error.message).toMatch(/^invalid parameter 'tokens': this request costs 50 compute units/);
    const single = (query: string) => fetch(`${smallUrl}/getNFTMetadata?contractAddress=${t.demo.nft}&tokenId=1${query}`);
    const refreshSingle = await single('&refreshCache=true');
    expect(refreshSingle.status).toBe(400);
    expect(((await refreshSingle.json()) as Body).error.message).toMatch(/this request costs 50 compute units/);
    expect((await single('&refreshCache=false')).status).toBe(200);
    // A refused batch costs nothing: the budget of a new second is whole after it.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const refused = await post('getNFTMetadataBatch', { tokens: [{ contractAddress: t.demo.nft, tokenId: 'x' }] }, smallUrl);
    expect(refused.status).toBe(400);
    expect(refused.remainingCu).toBe(45);
  });

  it('refuses bad input with 400 naming the item and parameter', async () => {
    const cases: [string, unknown, RegExp][] = [
      ['getNFTMetadataBatch', {}, /'tokens'/],
      ['getNFTMetadataBatch', { tokens: [] }, /'tokens'/],
      [
        'getNFTMetadataBatch',
        {
          tokens: [
            { contractAddress: t.demo.nft, tokenId: '1' },
            { contractAddress: '0x12', tokenId: '1' },
          ],
        },
        /'tokens\[1\]\.contractAddress'/,
      ],
      ['getNFTMetadataBatch', { tokens: [{ contractAddress: t.demo.nft, tokenId: '-1' }] }, /'tokens\[0\]\.tokenId'/],
      [
        'getNFTMetadataBatch',
        { tokens: Array.from({ length: 101 }, () => ({ contractAddress: t.demo.nft, tokenId: '1' })) },
        /'tokens'/,
      ],
      ['getContractMetadataBatch', { contractAddresses: [t.demo.nft, 'nope'] }, /'contractAddresses\[1\]'/],
      ['getContractMetadataBatch', { contractAddresses: [] }, /'contractAddresses'/],
    ];
    for (const [method, body, named] of cases) {
      const answer = await post(method, body);
      expect(answer.status, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect(answer.body.error.message).toMatch(named);
    }
    await expect(t.alchemy.nft.getNftMetadataBatch([{ contractAddress: '0x12', tokenId: '1' }])).rejects.toThrow(/tokens\[0\]/);
  });

  it("a key's contracts list covers every item; its methods list names the batch method", async () => {
    const restricted = await t.chain.service.createKey();
    await restrictKey(t.chain.service, restricted.keyId, { contracts: [t.demo.nft] });
    const restrictedUrl = `${t.chain.service.url}/v1/rpc/ethereum/devnet/${restricted.key}`;
    const listed = await post('getNFTMetadataBatch', { tokens: [{ contractAddress: t.demo.nft, tokenId: '1' }] }, restrictedUrl);
    expect(listed.status).toBe(200);
    const mixed = await post(
      'getNFTMetadataBatch',
      {
        tokens: [
          { contractAddress: t.demo.nft, tokenId: '1' },
          { contractAddress: t.demo.items, tokenId: '1' },
        ],
      },
      restrictedUrl,
    );
    expect(mixed.status).toBe(403);
    expect(mixed.body.error.message).toBe(
      `refused by this API key's restrictions.contracts: the contract ${t.demo.items} is not listed`,
    );
    const contracts = await post('getContractMetadataBatch', { contractAddresses: [t.demo.items] }, restrictedUrl);
    expect(contracts.status).toBe(403);

    const single = await t.chain.service.createKey();
    await restrictKey(t.chain.service, single.keyId, { methods: ['getNFTMetadata'] });
    const singleUrl = `${t.chain.service.url}/v1/rpc/ethereum/devnet/${single.key}`;
    const refused = await post('getNFTMetadataBatch', { tokens: [{ contractAddress: t.demo.nft, tokenId: '1' }] }, singleUrl);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/the method 'getNFTMetadataBatch' is not listed/);
  });
});
