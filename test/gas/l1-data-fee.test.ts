import { createPublicClient, encodeFunctionData, http, parseAbi, serializeTransaction } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gasPriceOracleAbi, gasPriceOracleAddress } from '../../src/gas/l1-fee/l1-fee-contracts.ts';
import { busyL1, installOpPredeploys, setOpL1FeeParameters } from '../support/op-predeploys.ts';
import { createResponseChecker, type OpenApiDocument } from '../support/openapi.ts';
import { devnetChain, startTestService, type TestService } from '../support/service.ts';

/** An ERC-20 transfer as a wallet would send it, other values than the service's own (USDC-sized amount, fresh addresses). */
function someErc20Transfer(): `0x${string}` {
  const data = encodeFunctionData({
    abi: parseAbi(['function transfer(address to, uint256 amount) returns (bool)']),
    functionName: 'transfer',
    args: ['0x9b1f7f645351af3631a656421ed2e40f2802e6c0', 250_000_000n],
  });
  return serializeTransaction({
    type: 'eip1559',
    chainId: 31337,
    nonce: 17,
    gas: 52_000n,
    maxFeePerGas: 3_000_000n,
    maxPriorityFeePerGas: 1_000n,
    to: '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85',
    data,
  });
}

describe('GET /v1/gas/{chain}/prices on an OP-stack network: l1_data_fee', () => {
  let t: TestService;
  let key: string;
  let check: ReturnType<typeof createResponseChecker>;
  const get = async (network: string) => {
    const response = await fetch(`${t.url}/v1/gas/ethereum/prices?network=${network}`, {
      headers: { 'x-api-key': key },
      signal: AbortSignal.timeout(10_000),
    });
    // biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
    const body = (await response.json()) as any;
    check('GET', '/v1/gas/{chain}/prices', response.status, body);
    expect(response.status).toBe(200);
    return body;
  };
  const getL1Fee = (serialized: `0x${string}`) =>
    createPublicClient({ chain: foundry, transport: http(t.anvil.url) }).readContract({
      address: gasPriceOracleAddress,
      abi: gasPriceOracleAbi,
      functionName: 'getL1Fee',
      args: [serialized],
    });

  beforeAll(async () => {
    t = await startTestService({
      chainsFor: (anvilUrl) => [
        devnetChain(anvilUrl, { fee_model: 'op-stack', block_time_s: 2 }),
        { chain: 'ethereum', network: 'l1net', chain_id: 31337, testnet: true, upstreams: [{ url: anvilUrl }] },
      ],
    });
    await installOpPredeploys(t.anvil.url);
    key = (await t.createKey({ plan: 'enterprise' })).key;
    check = createResponseChecker((await (await fetch(`${t.url}/v1/openapi.json`)).json()) as OpenApiDocument);
  });
  afterAll(() => t?.stop());

  it("carries an ERC-20 transfer's L1 fee within 10% of GasPriceOracle.getL1Fee, and 2 s block estimates", async () => {
    const body = await get('devnet');
    const expected = await getL1Fee(someErc20Transfer());
    const answered = BigInt(body.l1_data_fee.estimated_wei_per_transfer);
    expect(body.l1_data_fee.estimated_wei_per_transfer).toMatch(/^[0-9]+$/);
    // A busy L1 (60 gwei): the fee is real money next to the L2 gas of a transfer.
    expect(expected).toBeGreaterThan(10n ** 12n);
    expect(Number(answered) / Number(expected)).toBeGreaterThan(0.9);
    expect(Number(answered) / Number(expected)).toBeLessThan(1.1);
    expect(Date.parse(body.l1_data_fee.updated_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(['fast', 'standard', 'slow'].map((tier) => body.estimates[tier].estimated_seconds)).toEqual([2, 4, 10]);
  });

  it('follows the L1 fee parameters from one block to the next', async () => {
    const before = BigInt((await get('devnet')).l1_data_fee.estimated_wei_per_transfer);
    await setOpL1FeeParameters(t.anvil.url, { ...busyL1, l1BaseFeeWei: busyL1.l1BaseFeeWei * 3n });
    await fetch(t.anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"evm_mine","params":[]}',
    });
    const after = BigInt((await get('devnet')).l1_data_fee.estimated_wei_per_transfer);
    expect(after).toBeGreaterThan(before);
    const expected = await getL1Fee(someErc20Transfer());
    expect(Number(after) / Number(expected)).toBeGreaterThan(0.9);
    expect(Number(after) / Number(expected)).toBeLessThan(1.1);
  });

  it('an EIP-1559 network has no l1_data_fee', async () => {
    const body = await get('l1net');
    expect(body).not.toHaveProperty('l1_data_fee');
    expect(body.estimates.fast.estimated_seconds).toBe(12);
  });
});
