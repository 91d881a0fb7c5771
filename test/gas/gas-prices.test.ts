import { createPublicClient, createWalletClient, formatGwei, http, parseGwei } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResponseChecker, type OpenApiDocument } from '../support/openapi.ts';
import { startTestService, type TestService } from '../support/service.ts';

const sender = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const recipient = '0x70997970c51812dc3a010c7d01b50e5d17dc79c8';

describe('GET /v1/gas/{chain}/prices', () => {
  let t: TestService;
  let key: string;
  let check: ReturnType<typeof createResponseChecker>;
  const get = async (path: string, apiKey = key) => {
    const response = await fetch(`${t.url}${path}`, { headers: { 'x-api-key': apiKey }, signal: AbortSignal.timeout(10_000) });
    // biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
    const body = (await response.json()) as any;
    check('GET', '/v1/gas/{chain}/prices', response.status, body);
    return { status: response.status, body };
  };

  beforeAll(async () => {
    t = await startTestService();
    key = (await t.createKey({ plan: 'enterprise' })).key;
    check = createResponseChecker((await (await fetch(`${t.url}/v1/openapi.json`)).json()) as OpenApiDocument);
    // Blocks whose transactions pay different tips: 1, 2, ... 6 gwei.
    const wallet = createWalletClient({ account: sender, chain: foundry, transport: http(t.anvil.url) });
    for (let tip = 1; tip <= 6; tip++) {
      await wallet.sendTransaction({
        to: recipient,
        value: 1n,
        maxPriorityFeePerGas: parseGwei(String(tip)),
        maxFeePerGas: parseGwei('100'),
      });
    }
  });
  afterAll(() => t?.stop());

  it('answers slow, standard and fast fees from eth_feeHistory, exact in gwei', async () => {
    const { status, body } = await get('/v1/gas/ethereum/prices');
    expect(status).toBe(200);
    const direct = createPublicClient({ chain: foundry, transport: http(t.anvil.url) });
    const history = await direct.getFeeHistory({ blockCount: 20, rewardPercentiles: [10, 50, 90] });
    const nextBaseFee = history.baseFeePerGas.at(-1)!;
    expect(body.chain).toBe('ethereum');
    expect(body.block_number).toBe(Number(await direct.getBlockNumber()));
    expect(body.base_fee_gwei).toBe(formatGwei(nextBaseFee));
    const tips = ['slow', 'standard', 'fast'].map((tier) => parseGwei(body.estimates[tier].max_priority_fee_gwei));
    expect(tips[0]! <= tips[1]! && tips[1]! <= tips[2]!).toBe(true);
    // Six blocks carry one transaction each with tips 1..6 gwei; the rest of the window is empty.
    const fastTips = history.reward!.map((row) => row[2]!).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(tips[2]).toBe(fastTips[Math.floor((fastTips.length - 1) / 2)]);
    expect(parseGwei(body.estimates.fast.max_fee_gwei)).toBe(nextBaseFee * 2n + tips[2]!);
    expect(parseGwei(body.estimates.slow.max_fee_gwei)).toBe(nextBaseFee + tips[0]!);
    // block_time_s defaults to 12 for a configured chain: fast ~1 block, standard ~2, slow ~5.
    expect([
      body.estimates.fast.estimated_seconds,
      body.estimates.standard.estimated_seconds,
      body.estimates.slow.estimated_seconds,
    ]).toEqual([12, 24, 60]);
    expect(Date.parse(body.updated_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('is computed once per block', async () => {
    const first = await get('/v1/gas/ethereum/prices');
    const second = await get('/v1/gas/ethereum/prices');
    expect(second.body.updated_at).toBe(first.body.updated_at);
    await fetch(t.anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"evm_mine","params":[]}',
    });
    const third = await get('/v1/gas/ethereum/prices');
    expect(third.body.block_number).toBe(first.body.block_number + 1);
  });

  it('picks the network from the key: test keys a testnet, live keys the mainnet, ?network= another', async () => {
    const live = (await t.createKey({ environment: 'live' })).key;
    expect((await get('/v1/gas/ethereum/prices', live)).status).toBe(200);
    const refused = await get('/v1/gas/ethereum/prices?network=devnet', live);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/testnet/);
    expect((await get('/v1/gas/ethereum/prices?network=devnet')).status).toBe(200);
  });

  it('refuses bad input clearly', async () => {
    const noScope = (await t.createKey({ scopes: ['rpc:read'] })).key;
    const forbidden = await get('/v1/gas/ethereum/prices', noScope);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.message).toMatch(/data:read/);
    const unknownChain = await get('/v1/gas/bitcoin/prices');
    expect(unknownChain.status).toBe(404);
    expect(unknownChain.body.error.message).toMatch(/unknown chain 'bitcoin'/);
    const unknownNetwork = await get('/v1/gas/ethereum/prices?network=holesky');
    expect(unknownNetwork.status).toBe(404);
    expect(unknownNetwork.body.error.message).toMatch(/no network 'holesky'/);
    expect((await get('/v1/gas/ethereum/prices', 'svc_test_nope')).status).toBe(401);
  });
});
