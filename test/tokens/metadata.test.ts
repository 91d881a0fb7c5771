import { type Abi, type Address, formatUnits, parseUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployTestContracts, type TestContracts } from '../support/contracts.ts';
import { createResponseChecker, type OpenApiDocument } from '../support/openapi.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { bytes32TokenAddress, bytes32TokenCode } from './bytes32-token.ts';
import { recordIndexedHead } from './indexed-rows.ts';

const template = '/v1/tokens/{chain}/metadata/{contract}';

describe('GET /v1/tokens/{chain}/metadata/{contract}', () => {
  let t: TestService;
  let key: string;
  let c: TestContracts;
  let tokenAbi: Abi;
  let check: ReturnType<typeof createResponseChecker>;

  // biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
  async function get(path: string): Promise<{ status: number; body: any }> {
    const response = await fetch(`${t.url}${path}`, { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(10_000) });
    const body = await response.json();
    check('GET', template, response.status, body);
    return { status: response.status, body };
  }

  async function mint(amount: bigint) {
    const hash = await c.wallet.writeContract({
      address: c.token,
      abi: tokenAbi,
      functionName: 'mint',
      args: [c.wallet.account.address, amount],
    });
    await c.publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 });
  }

  const totalSupplyAt = (blockNumber: bigint) =>
    c.publicClient.readContract({ address: c.token, abi: tokenAbi, functionName: 'totalSupply', blockNumber }) as Promise<bigint>;

  beforeAll(async () => {
    t = await startTestService();
    key = (await t.createKey()).key;
    check = createResponseChecker((await (await fetch(`${t.url}/v1/openapi.json`)).json()) as OpenApiDocument);
    c = await deployTestContracts(t.anvil.url);
    tokenAbi = c.artifacts.DemoToken.abi;
    await mint(parseUnits('1000000.000000000000000001', 18));
  });
  afterAll(() => t?.stop());

  it('reads name, symbol, decimals and the exact total supply; price and logo are null when unknown', async () => {
    // Nothing indexed yet: the chain head.
    const head = await c.publicClient.getBlockNumber({ cacheTime: 0 });
    const { status, body } = await get(`/v1/tokens/ethereum/metadata/${c.token}`);
    expect(status).toBe(200);
    expect(body).toEqual({
      contract: c.token.toLowerCase(),
      chain: 'ethereum',
      network: 'devnet',
      name: 'Test Token',
      symbol: 'TST',
      decimals: 18,
      total_supply: (await totalSupplyAt(head)).toString(),
      formatted_total_supply: '1000000.000000000000000001',
      price_usd: null,
      market_cap_usd: null,
      logo_url: null,
      is_spam: false,
      spam_reasons: [],
      block_number: Number(head),
    });
    const cached = await t.database.db
      .selectFrom('token_metadata')
      .selectAll()
      .where('contract', '=', c.token.toLowerCase())
      .execute();
    expect(cached.map((row) => [row.network, row.name, row.symbol, row.decimals])).toEqual([
      ['ethereum/devnet', 'Test Token', 'TST', 18],
    ]);
  });

  it('reads the total supply at the newest indexed block once there is one', async () => {
    const indexed = await recordIndexedHead(t.database.db, 'ethereum/devnet', c.publicClient);
    await mint(5n);
    const { body } = await get(`/v1/tokens/ethereum/metadata/${c.token.toLowerCase()}`);
    expect(body.block_number).toBe(Number(indexed));
    const supply = await totalSupplyAt(indexed);
    expect(body.total_supply).toBe(supply.toString());
    expect(body.formatted_total_supply).toBe(formatUnits(supply, 18));
    expect(await totalSupplyAt(await c.publicClient.getBlockNumber({ cacheTime: 0 }))).toBe(supply + 5n);
    const later = await recordIndexedHead(t.database.db, 'ethereum/devnet', c.publicClient);
    expect((await get(`/v1/tokens/ethereum/metadata/${c.token}`)).body).toMatchObject({
      block_number: Number(later),
      total_supply: (supply + 5n).toString(),
    });
  });

  it('decodes bytes32 names and symbols of old tokens (MKR style)', async () => {
    await c.publicClient.request({
      method: 'anvil_setCode' as never,
      params: [
        bytes32TokenAddress,
        bytes32TokenCode({ name: 'Maker', symbol: 'MKR', decimals: 18, supply: 10n ** 24n, balance: 0n }),
      ] as never,
    });
    await recordIndexedHead(t.database.db, 'ethereum/devnet', c.publicClient);
    const { status, body } = await get(`/v1/tokens/ethereum/metadata/${bytes32TokenAddress}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      name: 'Maker',
      symbol: 'MKR',
      decimals: 18,
      total_supply: (10n ** 24n).toString(),
      formatted_total_supply: '1000000',
    });
  });

  it('answers 404 for an address without code and for contracts that are not ERC-20 tokens', async () => {
    const cases: [Address, RegExp][] = [
      [
        '0x000000000000000000000000000000000000dEaD',
        /^no contract at 0x000000000000000000000000000000000000dead on ethereum\/devnet at block \d+, the newest indexed block$/,
      ],
      [c.nft, /is not an ERC-20 token: it is an ERC-721 NFT contract/],
      [c.items, /is not an ERC-20 token: it is an ERC-1155 multi-token contract/],
      [c.priceFeed, /is not an ERC-20 token: (decimals|totalSupply|balanceOf)\(.*\) (reverts|returns no uint256)$/],
    ];
    for (const [contract, message] of cases) {
      const { status, body } = await get(`/v1/tokens/ethereum/metadata/${contract}`);
      expect([contract, status, body.error.code]).toEqual([contract, 404, 'not_found']);
      expect(body.error.message).toMatch(message);
    }
  });

  it('refuses a malformed contract with a 400 naming it', async () => {
    for (const bad of ['0x12', 'token', `${c.token}00`, '0xF39fd6e51aad88F6F4ce6aB8827279cffFb92266']) {
      const { status, body } = await get(`/v1/tokens/ethereum/metadata/${bad}`);
      expect([bad, status]).toEqual([bad, 400]);
      expect(body.error.message).toMatch(/^invalid parameter 'contract'/);
    }
  });
});
