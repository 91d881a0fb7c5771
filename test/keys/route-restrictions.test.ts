import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restrictKey } from '../support/key-restrictions.ts';
import { startTestService, type TestService } from '../support/service.ts';

const listed = '0x00000000000000000000000000000000000000a1';
const unlisted = '0x00000000000000000000000000000000000000b2';
const owner = '0x00000000000000000000000000000000000000c3';

describe("a key's methods and contracts on the REST and NFT routes (issue 35 item 4)", () => {
  let t: TestService;
  let rpcOnly: string;
  let nftMethods: string;
  let contracts: string;
  beforeAll(async () => {
    t = await startTestService();
    const a = await t.createKey();
    await restrictKey(t, a.keyId, { methods: ['eth_blockNumber'] });
    rpcOnly = a.key;
    const b = await t.createKey();
    await restrictKey(t, b.keyId, { methods: ['getNFTsForOwner', 'nfts.collection'] });
    nftMethods = b.key;
    const c = await t.createKey();
    await restrictKey(t, c.keyId, { contracts: [listed] });
    contracts = c.key;
  });
  afterAll(() => t?.stop());

  const get = async (key: string, path: string, form: 'url' | 'rest') => {
    const url = form === 'url' ? `${t.url}/v1/rpc/ethereum/devnet/${key}/${path}` : `${t.url}${path}`;
    const response = await fetch(url, {
      headers: form === 'rest' ? { 'x-api-key': key } : {},
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await response.json()) as { error?: { message: string } };
    return { status: response.status, message: body.error?.message ?? '' };
  };

  it('methods: the NFT v3 routes under the URL form have their Alchemy names, the REST routes theirs', async () => {
    const refused = await get(rpcOnly, `getNFTsForOwner?owner=${owner}`, 'url');
    expect(refused).toEqual({
      status: 403,
      message: "refused by this API key's restrictions.methods: the method 'getNFTsForOwner' is not listed",
    });
    expect((await get(rpcOnly, `/v1/nfts/ethereum/collection/${listed}?network=devnet`, 'rest')).message).toMatch(
      /restrictions\.methods: the method 'nfts\.collection' is not listed/,
    );
    expect((await get(rpcOnly, '/v1/gas/ethereum/prices?network=devnet', 'rest')).message).toMatch(/'gas\.prices' is not listed/);
    // Listed: not refused by the key (whatever the route then answers).
    expect((await get(nftMethods, `getNFTsForOwner?owner=${owner}`, 'url')).status).not.toBe(403);
    expect((await get(nftMethods, `/v1/nfts/ethereum/collection/${listed}?network=devnet`, 'rest')).status).not.toBe(403);
    expect((await get(nftMethods, `getNFTMetadata?contractAddress=${listed}&tokenId=1`, 'url')).status).toBe(403);
  });

  it('contracts: a route about a contract needs it listed; one that reads every contract needs them named', async () => {
    expect(await get(contracts, `getNFTMetadata?contractAddress=${unlisted}&tokenId=1`, 'url')).toEqual({
      status: 403,
      message: `refused by this API key's restrictions.contracts: the contract ${unlisted} is not listed`,
    });
    expect((await get(contracts, `getNFTMetadata?contractAddress=${listed}&tokenId=1`, 'url')).status).not.toBe(403);
    expect((await get(contracts, `getNFTsForOwner?owner=${owner}`, 'url')).message).toMatch(
      /the method 'getNFTsForOwner' reads every contract unless 'contractAddresses' names them/,
    );
    expect((await get(contracts, `getNFTsForOwner?owner=${owner}&contractAddresses[]=${listed}`, 'url')).status).not.toBe(403);
    expect((await get(contracts, `getNFTsForOwner?owner=${owner}&contractAddresses[]=${unlisted}`, 'url')).status).toBe(403);
    expect((await get(contracts, `/v1/nfts/ethereum/metadata/${unlisted}/1?network=devnet`, 'rest')).status).toBe(403);
    expect((await get(contracts, `/v1/tokens/ethereum/metadata/${listed}?network=devnet`, 'rest')).status).not.toBe(403);
    expect((await get(contracts, `/v1/tokens/ethereum/balances/${owner}?network=devnet`, 'rest')).message).toMatch(
      /the method 'tokens\.balances' reads every contract, which a key with a contracts list cannot/,
    );
    expect((await get(contracts, `/v1/transfers/ethereum/${owner}?network=devnet&contract=${listed}`, 'rest')).status).not.toBe(
      403,
    );
    expect((await get(contracts, `/v1/transfers/ethereum/${owner}?network=devnet`, 'rest')).status).toBe(403);
    // A malformed contract is the route's own 400, naming the parameter.
    const malformed = await get(contracts, `getNFTMetadata?contractAddress=0x12&tokenId=1`, 'url');
    expect(malformed.status).toBe(400);
    expect(malformed.message).toMatch(/contractAddress/);
  });

  it("the route names are accepted in a key's methods list; a misspelt one is refused", async () => {
    const key = await t.createKey();
    const ok = await t.admin('PATCH', `/admin/keys/${key.keyId}`, {
      restrictions: { methods: ['getOwnersForNFT', 'tokens.balances'] },
    });
    expect(ok.status).toBe(200);
    const misspelt = await t.admin('PATCH', `/admin/keys/${key.keyId}`, { restrictions: { methods: ['getNFTsForOwners'] } });
    expect(misspelt.status).toBe(400);
  });
});
