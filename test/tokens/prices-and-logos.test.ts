import { type Abi, type Address, parseUnits } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { deployTestContracts, type TestContracts } from '../support/contracts.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { createResponseChecker, type OpenApiDocument } from '../support/openapi.ts';
import { recordHoldings, recordIndexedHead } from './indexed-rows.ts';
import { startPricedService } from './priced-service.ts';

describe('token prices (static table and on-chain aggregator) and token-list logos', () => {
  let anvil: Devnet;
  let database: TestDatabase;
  let c: TestContracts;
  let tokenAbi: Abi;
  let weth: Address;
  let running: Awaited<ReturnType<typeof startPricedService>>;
  let check: ReturnType<typeof createResponseChecker>;
  const holder = privateKeyToAccount(generatePrivateKey()).address;

  // biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
  async function get(path: string, template: string): Promise<{ status: number; body: any }> {
    const response = await fetch(`${running.service.url}${path}`, {
      headers: { 'x-api-key': running.key },
      signal: AbortSignal.timeout(10_000),
    });
    const body = await response.json();
    check('GET', template, response.status, body);
    return { status: response.status, body };
  }
  const metadata = async (contract: Address) =>
    (await get(`/v1/tokens/ethereum/metadata/${contract}`, '/v1/tokens/{chain}/metadata/{contract}')).body;
  const balances = () => get(`/v1/tokens/ethereum/balances/${holder}`, '/v1/tokens/{chain}/balances/{address}');

  async function write(address: Address, abi: Abi, functionName: string, args: readonly unknown[]) {
    const hash = await c.wallet.writeContract({ address, abi, functionName, args });
    const receipt = await c.publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 });
    expect(receipt.status).toBe('success');
  }
  const setAnswer = (answer: bigint) => write(c.priceFeed, c.artifacts.DemoPriceFeed.abi, 'setAnswer', [answer]);
  const index = () => recordIndexedHead(database.db, 'ethereum/devnet', c.publicClient);

  beforeAll(async () => {
    [anvil, database] = await Promise.all([startTestAnvil(), createTestDatabase()]);
    c = await deployTestContracts(anvil.url);
    tokenAbi = c.artifacts.DemoToken.abi;
    const hash = await c.wallet.deployContract({
      abi: tokenAbi,
      bytecode: c.artifacts.DemoToken.bytecode,
      args: ['Wrapped Ether', 'WETH', 18],
    });
    weth = (await c.publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 })).contractAddress!;
    const tokenList = {
      name: 'test',
      tokens: [
        { chainId: 31337, address: c.token, logoURI: 'https://logos.example/tst.png' },
        { chainId: 31337, address: weth, logoURI: 'ipfs://QmWethLogo/weth.svg' },
        { chainId: 1, address: c.items, logoURI: 'https://logos.example/other-chain.png' },
      ],
    };
    running = await startPricedService({
      anvil,
      database,
      files: { 'tokens.json': JSON.stringify(tokenList) },
      nfts: { ipfs_gateway: 'https://gateway.example/ipfs/' },
      tokens: {
        // No network: every network of the chain.
        prices: [{ chain: 'ethereum', contract: c.token, usd: '1.25' }],
        price_feeds: [{ chain: 'ethereum', network: 'devnet', contract: weth, aggregator: c.priceFeed }],
        token_list: 'tokens.json',
      },
    });
    check = createResponseChecker((await (await fetch(`${running.service.url}/v1/openapi.json`)).json()) as OpenApiDocument);
    await write(c.token, tokenAbi, 'mint', [holder, parseUnits('1000.5', 18)]);
    await write(weth, tokenAbi, 'mint', [holder, parseUnits('2.5', 18)]);
    await recordHoldings(database.db, 'ethereum/devnet', holder, [c.token, weth]);
  }, 120_000);
  afterAll(async () => {
    await running?.stop();
    await Promise.all([anvil?.stop(), database?.close()]);
  });

  it('answers 503 while the index of an indexed network has no block yet', async () => {
    const { status, body } = await balances();
    expect(status).toBe(503);
    expect(body.error).toEqual({
      code: 'service_unavailable',
      status: 503,
      message: 'the index of ethereum/devnet has not started yet; retry in a few seconds',
    });
  });

  it('prices a token from the static table: price, market cap and USD values exact', async () => {
    await index();
    expect(await metadata(c.token)).toMatchObject({
      total_supply: parseUnits('1000.5', 18).toString(),
      price_usd: '1.25',
      market_cap_usd: '1250.625',
      logo_url: 'https://logos.example/tst.png',
    });
    const { body } = await balances();
    expect(body.tokens.find((entry: { contract: string }) => entry.contract === c.token.toLowerCase())).toMatchObject({
      usd_value: '1250.625',
      logo_url: 'https://logos.example/tst.png',
    });
  });

  it('prices a token from its aggregator at the block the answer names, rounded half up to 6 decimals', async () => {
    expect(await metadata(weth)).toMatchObject({
      price_usd: '3000',
      market_cap_usd: '7500',
      logo_url: 'https://gateway.example/ipfs/QmWethLogo/weth.svg',
    });
    await setAnswer(250_012_345_678n); // 2500.12345678 with 8 decimals
    // Not indexed yet: still the price at the indexed block.
    expect((await metadata(weth)).price_usd).toBe('3000');
    await index();
    expect(await metadata(weth)).toMatchObject({ price_usd: '2500.12345678', market_cap_usd: '6250.308642' });
    const { body } = await balances();
    // 2.5 x 2500.12345678 = 6250.30864195 -> 6250.308642
    expect(body.tokens.find((entry: { contract: string }) => entry.contract === weth.toLowerCase()).usd_value).toBe(
      '6250.308642',
    );
  });

  it('gives null for non-positive and stale answers', async () => {
    await setAnswer(0n);
    await index();
    expect(await metadata(weth)).toMatchObject({ price_usd: null, market_cap_usd: null });
    await setAnswer(-5n);
    await index();
    expect((await metadata(weth)).price_usd).toBeNull();
    await setAnswer(300_000_000_000n);
    await index();
    expect((await metadata(weth)).price_usd).toBe('3000');
    // 26 hours without an update: older than the slowest Chainlink heartbeat allows.
    await c.publicClient.request({ method: 'evm_increaseTime' as never, params: [26 * 3600] as never });
    await c.publicClient.request({ method: 'evm_mine' as never, params: [] as never });
    await index();
    expect(await metadata(weth)).toMatchObject({ price_usd: null, market_cap_usd: null });
    const { body } = await balances();
    expect(body.tokens.find((entry: { contract: string }) => entry.contract === weth.toLowerCase()).usd_value).toBeNull();
    // The static price is not affected by time.
    expect((await metadata(c.token)).price_usd).toBe('1.25');
  });

  it('a token list that is missing or invalid stops the start, naming the file', async () => {
    await expect(startPricedService({ anvil, database, tokens: { token_list: 'absent.json' } })).rejects.toThrow(
      /token list .*absent\.json cannot be read: ENOENT/,
    );
    await expect(
      startPricedService({
        anvil,
        database,
        files: { 'list.json': '{"tokens": {}}' },
        tokens: { token_list: 'list.json' },
      }),
    ).rejects.toThrow(/token list .*list\.json has no "tokens" array/);
  });
});
