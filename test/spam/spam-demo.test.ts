import { Alchemy, NftFilters } from 'alchemy-sdk';
import { encodeFunctionData, getAddress, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAccounts, demoSpamToken, spamTarget } from '../../src/demo/demo-plan.ts';
import { type DemoDeployment, demoContractAddresses, deployDemo } from '../../src/demo/deploy-demo.ts';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';
import { createResponseChecker, type OpenApiDocument } from '../support/openapi.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
type Body = any;

const lower = (address: string) => address.toLowerCase();

/**
 * The spam flags on the demo's data (its spam-shaped token and NFT collection), the filters through
 * REST and through alchemy-sdk, and the operator's lists (a settings deny entry, the admin API's
 * allow and deny entries) over the real indexer, Postgres and anvil.
 */
describe('spam flags and filters on the demo data', () => {
  let chain: IndexedChain;
  let key: string;
  let url: string;
  let alchemy: Alchemy;
  let demo: DemoDeployment;
  let check: ReturnType<typeof createResponseChecker>;

  async function get(path: string): Promise<{ status: number; body: Body }> {
    const response = await fetch(`${chain.service.url}${path}`, {
      headers: { 'x-api-key': key },
      signal: AbortSignal.timeout(15_000),
    });
    return { status: response.status, body: await response.json() };
  }
  async function ok(path: string): Promise<Body> {
    const { status, body } = await get(path);
    expect(status, `${path}: ${JSON.stringify(body)}`).toBe(200);
    return body;
  }
  async function v3(method: string, query: string): Promise<{ status: number; body: Body }> {
    const response = await fetch(`${url}/${method}?${query}`, { signal: AbortSignal.timeout(15_000) });
    const body = await response.json();
    check('GET', `/v1/rpc/{chain}/{network}/{apiKey}/${method}`, response.status, body);
    return { status: response.status, body };
  }

  beforeAll(async () => {
    const addresses = await demoContractAddresses();
    // The settings deny the demo's (honest) ERC-1155 items: the operator's word beats the heuristics.
    chain = await startIndexedChain({
      settings: { spam: { deny: [{ chain: 'ethereum', network: 'devnet', contract: addresses.items }] } },
    });
    key = (await chain.service.createKey()).key;
    url = `${chain.service.url}/v1/rpc/ethereum/devnet/${key}`;
    alchemy = new Alchemy({ url, maxRetries: 0 });
    check = createResponseChecker((await (await fetch(`${chain.service.url}/v1/openapi.json`)).json()) as OpenApiDocument);
    demo = await deployDemo({ rpcUrl: chain.service.anvil.url, log: { info: () => undefined } });
    await chain.synced();
  }, 180_000);
  afterAll(() => chain?.service.stop());

  it('REST tokens: the spam token is flagged with its reasons, the demo token is not; exclude_spam filters balances', async () => {
    const spam = await ok(`/v1/tokens/ethereum/metadata/${demo.spamToken}`);
    expect(spam.name).toBe(demoSpamToken.constructorArgs[0]);
    expect(spam.is_spam).toBe(true);
    // Minted into 25 wallets that did not send the transaction: HighAirdropPercent too.
    expect([...spam.spam_reasons].sort()).toEqual([
      'HighAirdropPercent',
      'airdrop_fanout',
      'scam_bytecode',
      'suspicious_name',
      'url_in_name',
    ]);
    const honest = await ok(`/v1/tokens/ethereum/metadata/${demo.token}`);
    expect(honest).toMatchObject({ is_spam: false, spam_reasons: [] });

    const all = await ok(`/v1/tokens/ethereum/balances/${spamTarget}`);
    expect(all.tokens.map((t: Body) => [t.contract, t.is_spam])).toEqual([[lower(demo.spamToken), true]]);
    const filtered = await ok(`/v1/tokens/ethereum/balances/${spamTarget}?exclude_spam=true`);
    expect(filtered).toMatchObject({ tokens: [], total: 0 });
    // An honest holder keeps its tokens under the filter.
    const alice = await ok(`/v1/tokens/ethereum/balances/${demoAccounts.alice}?exclude_spam=true`);
    expect(alice.tokens.map((t: Body) => [t.contract, t.is_spam])).toEqual([[lower(demo.token), false]]);

    const bad = await get(`/v1/tokens/ethereum/balances/${spamTarget}?exclude_spam=maybe`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('exclude_spam');
  });

  it('REST NFTs: the airdropped collection is spam (HighAirdropPercent among its reasons); exclude_spam filters owned NFTs', async () => {
    const spam = await ok(`/v1/nfts/ethereum/collection/${demo.spamNft}`);
    expect(spam.is_spam).toBe(true);
    expect(spam.spam_reasons).toEqual(expect.arrayContaining(['HighAirdropPercent', 'airdrop_fanout', 'url_in_name']));
    expect(spam.spam_confidence).toBe('VERY_HIGH');
    expect(await ok(`/v1/nfts/ethereum/collection/${demo.nft}`)).toMatchObject({ is_spam: false, spam_reasons: [] });

    const owned = await ok(`/v1/nfts/ethereum/owned/${spamTarget}`);
    expect(owned.nfts.map((n: Body) => [n.contract, n.is_spam])).toEqual([[lower(demo.spamNft), true]]);
    expect(await ok(`/v1/nfts/ethereum/owned/${spamTarget}?exclude_spam=true`)).toMatchObject({ nfts: [], total: 0 });
    const bad = await get(`/v1/nfts/ethereum/owned/${spamTarget}?exclude_spam=2`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('exclude_spam');
  });

  it('REST transfers: exclude_spam leaves out the spam token and NFT transfers of the address', async () => {
    const all = await ok(`/v1/transfers/ethereum/${spamTarget}`);
    expect(new Set(all.transfers.map((t: Body) => t.contract))).toEqual(new Set([lower(demo.spamToken), lower(demo.spamNft)]));
    expect((await ok(`/v1/transfers/ethereum/${spamTarget}?exclude_spam=true`)).transfers).toEqual([]);
    // Alice's honest transfers stay; those of the items collection the settings deny go.
    const alice = await ok(`/v1/transfers/ethereum/${demoAccounts.alice}`);
    const aliceFiltered = await ok(`/v1/transfers/ethereum/${demoAccounts.alice}?exclude_spam=true`);
    const honest = alice.transfers.filter((t: Body) => t.contract !== lower(demo.items));
    expect(honest.length).toBeLessThan(alice.transfers.length);
    expect(honest.length).toBeGreaterThan(0);
    expect(aliceFiltered.transfers).toEqual(honest);
    expect((await get(`/v1/transfers/ethereum/${spamTarget}?exclude_spam=yes`)).status).toBe(400);
  });

  it('alchemy-sdk: isSpam and spamClassifications on the contract, excludeFilters/includeFilters SPAM, isSpamContract', async () => {
    const owned = await alchemy.nft.getNftsForOwner(spamTarget);
    expect(owned.totalCount).toBe(1);
    const contract = owned.ownedNfts[0]!.contract;
    expect(contract.address).toBe(getAddress(demo.spamNft));
    expect(contract.isSpam).toBe(true);
    // alchemy-sdk maps the names outside its enum to Unknown; Alchemy's own name comes through.
    expect(contract.spamClassifications).toContain('HighAirdropPercent');

    const excluded = await alchemy.nft.getNftsForOwner(spamTarget, { excludeFilters: [NftFilters.SPAM] });
    expect(excluded).toMatchObject({ ownedNfts: [], totalCount: 0 });
    const only = await alchemy.nft.getNftsForOwner(spamTarget, { includeFilters: [NftFilters.SPAM] });
    expect(only.ownedNfts.map((nft) => nft.contract.address)).toEqual([getAddress(demo.spamNft)]);
    // The dev account: the apes stay, the items collection the settings deny goes.
    const dev = await alchemy.nft.getNftsForOwner(demoAccounts.dev);
    const devExcluded = await alchemy.nft.getNftsForOwner(demoAccounts.dev, { excludeFilters: [NftFilters.SPAM] });
    const isItems = (address: string) => address === getAddress(demo.items);
    expect(dev.ownedNfts.map((nft) => [nft.contract.address, nft.contract.isSpam === true])).toEqual(
      dev.ownedNfts.map((nft) => [nft.contract.address, isItems(nft.contract.address)]),
    );
    expect(dev.ownedNfts.some((nft) => isItems(nft.contract.address))).toBe(true);
    expect(devExcluded.ownedNfts.map((nft) => `${nft.contract.address}/${nft.tokenId}`)).toEqual(
      dev.ownedNfts.filter((nft) => !isItems(nft.contract.address)).map((nft) => `${nft.contract.address}/${nft.tokenId}`),
    );
    expect(devExcluded.totalCount).toBe(devExcluded.ownedNfts.length);

    expect(await alchemy.nft.isSpamContract(demo.spamNft)).toEqual({ isSpamContract: true });
    expect(await alchemy.nft.isSpamContract(demo.nft)).toEqual({ isSpamContract: false });
    // Of the collections classified so far: the airdropped one, and the items the settings deny.
    expect(await alchemy.nft.getSpamContracts()).toEqual({
      // In the order of the lower-case addresses, each written checksummed as Alchemy's v3 writes it.
      contractAddresses: [lower(demo.items), lower(demo.spamNft)].sort().map((address) => getAddress(address)),
    });
    const metadata = await v3('getContractMetadata', `contractAddress=${demo.spamNft}`);
    expect(metadata.body).toMatchObject({ isSpam: true });
    expect(metadata.body.spamClassifications).toContain('HighAirdropPercent');
  });

  it('spamConfidenceLevel: checked, and a level above the verdict keeps the collection', async () => {
    const base = `owner=${spamTarget}&excludeFilters[]=SPAM`;
    expect((await v3('getNFTsForOwner', `${base}&spamConfidenceLevel=VERY_HIGH`)).body.totalCount).toBe(0);
    expect((await v3('getNFTsForOwner', `${base}&spamConfidenceLevel=LOW`)).body.totalCount).toBe(0);
    const bad = await v3('getNFTsForOwner', `${base}&spamConfidenceLevel=EXTREME`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('spamConfidenceLevel');
    const badFilter = await v3('getNFTsForOwner', `owner=${spamTarget}&excludeFilters[]=SCAM`);
    expect(badFilter.status).toBe(400);
    expect(badFilter.body.error.message).toContain('excludeFilters');
  });

  it("the operator's lists: a settings deny entry, then admin API allow and deny entries override the heuristics", async () => {
    // Settings: the honest items collection is denied.
    const items = await ok(`/v1/nfts/ethereum/collection/${demo.items}`);
    expect(items).toMatchObject({ is_spam: true, spam_reasons: ['operator_deny'], spam_confidence: 'VERY_HIGH' });
    const bob = await ok(`/v1/nfts/ethereum/owned/${demoAccounts.bob}?exclude_spam=true`);
    expect(bob.nfts.map((n: Body) => n.contract)).not.toContain(lower(demo.items));

    const admin = chain.service.admin.bind(chain.service);
    // Allow the spam collection: not spam any more, whatever the heuristics found (they are still shown).
    const put = await admin('PUT', `/admin/spam/ethereum/devnet/${demo.spamNft}`, { list: 'allow', note: 'our own drop' });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ contract: lower(demo.spamNft), list: 'allow', note: 'our own drop' });
    const allowed = await ok(`/v1/nfts/ethereum/collection/${demo.spamNft}`);
    expect(allowed.is_spam).toBe(false);
    expect(allowed.spam_reasons).toContain('HighAirdropPercent');
    expect((await alchemy.nft.getNftsForOwner(spamTarget, { excludeFilters: [NftFilters.SPAM] })).totalCount).toBe(1);

    // Deny the honest demo token: spam in balances, and filtered.
    expect((await admin('PUT', `/admin/spam/ethereum/devnet/${demo.token}`, { list: 'deny' })).status).toBe(200);
    const alice = await ok(`/v1/tokens/ethereum/balances/${demoAccounts.alice}`);
    expect(alice.tokens[0]).toMatchObject({ contract: lower(demo.token), is_spam: true, spam_reasons: ['operator_deny'] });
    expect((await ok(`/v1/tokens/ethereum/balances/${demoAccounts.alice}?exclude_spam=true`)).total).toBe(0);

    const lists = await admin('GET', '/admin/spam/ethereum/devnet');
    expect(lists.status).toBe(200);
    expect(lists.body.entries.map((e: Body) => [e.contract, e.list]).sort()).toEqual(
      [
        [lower(demo.spamNft), 'allow'],
        [lower(demo.token), 'deny'],
      ].sort(),
    );
    expect(lists.body.settings).toEqual({ allow: [], deny: [lower(demo.items)] });

    // Off the lists: the heuristics decide again.
    expect((await admin('DELETE', `/admin/spam/ethereum/devnet/${demo.spamNft}`)).body).toEqual({
      contract: lower(demo.spamNft),
      deleted: true,
    });
    expect((await admin('DELETE', `/admin/spam/ethereum/devnet/${demo.token}`)).status).toBe(200);
    expect((await ok(`/v1/nfts/ethereum/collection/${demo.spamNft}`)).is_spam).toBe(true);
    expect((await ok(`/v1/tokens/ethereum/balances/${demoAccounts.alice}?exclude_spam=true`)).total).toBe(1);

    // Bad input: 400 naming the field; unknown network or entry: 404; no admin token: 401.
    const badContract = await admin('PUT', '/admin/spam/ethereum/devnet/0x123', { list: 'deny' });
    expect(badContract.status).toBe(400);
    expect(badContract.body.error.message).toContain('contract');
    const badList = await admin('PUT', `/admin/spam/ethereum/devnet/${demo.token}`, { list: 'maybe' });
    expect(badList.status).toBe(400);
    expect(JSON.stringify(badList.body)).toContain('list');
    expect((await admin('GET', '/admin/spam/ethereum/nowhere')).status).toBe(404);
    expect((await admin('DELETE', `/admin/spam/ethereum/devnet/${demo.token}`)).status).toBe(404);
    const anonymous = await fetch(`${chain.service.url}/admin/spam/ethereum/devnet`);
    expect(anonymous.status).toBe(401);
  });

  it('REST transfers: exclude_spam also leaves out a spam collection the address no longer holds', async () => {
    // A new address is minted items of the collection the settings deny, then burns them all.
    const holder = '0x00000000000000000000000000000000000b0b01';
    const items = parseAbi([
      'function mint(address to, uint256 id, uint256 value)',
      'function burn(address from, uint256 id, uint256 value)',
    ]);
    await chain.anvilRpc('anvil_setBalance', [holder, '0xde0b6b3a7640000']);
    await chain.anvilRpc('anvil_impersonateAccount', [holder]);
    for (const call of [
      encodeFunctionData({ abi: items, functionName: 'mint', args: [holder, 7n, 3n] }),
      encodeFunctionData({ abi: items, functionName: 'burn', args: [holder, 7n, 3n] }),
    ]) {
      await chain.anvilRpc('eth_sendTransaction', [{ from: holder, to: demo.items, data: call }]);
    }
    await chain.anvilRpc('anvil_stopImpersonatingAccount', [holder]);
    await chain.synced();

    expect((await ok(`/v1/nfts/ethereum/owned/${holder}`)).nfts).toEqual([]);
    const all = await ok(`/v1/transfers/ethereum/${holder}`);
    expect(all.transfers.map((t: Body) => [t.contract, t.from, t.to, t.value])).toEqual(
      expect.arrayContaining([
        [lower(demo.items), '0x0000000000000000000000000000000000000000', lower(holder), '3'],
        [lower(demo.items), lower(holder), '0x0000000000000000000000000000000000000000', '3'],
      ]),
    );
    expect((await ok(`/v1/transfers/ethereum/${holder}?exclude_spam=true`)).transfers).toEqual([]);
  });
});
