import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { canonicalErc4337 } from '../../src/config/chain-settings.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { installOpPredeploys } from '../support/op-predeploys.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * The first must-show: a base/mainnet entry of only `chain`, `network` and `upstreams` (an anvil
 * run with Base's chain id 8453 and the OP-stack predeploys a Base node has) serves chain id 8453, estimates in Base's 2 s blocks and the canonical
 * EntryPoints, with nothing else described.
 */
describe('a network described by its preset alone', () => {
  let base: Devnet;
  let t: TestService;
  let key: string;

  beforeAll(async () => {
    base = await startTestAnvil({ chainId: 8453 });
    await installErc4337Contracts(base.url);
    // Base's nodes have the OP-stack predeploys its fee model reads (the L1 data fee in the gas prices).
    await installOpPredeploys(base.url);
    t = await startTestService({ chains: [{ chain: 'base', network: 'mainnet', upstreams: [{ url: base.url }] }] });
    ({ key } = await t.createKey({ environment: 'live' }));
  }, 90_000);
  afterAll(async () => {
    await t?.stop();
    await base?.stop();
  });

  const get = async (path: string) => {
    const response = await fetch(`${t.url}${path}`, { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(10_000) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('serves chain id 8453 on its JSON-RPC URL', async () => {
    const answer = await post('/v1/rpc/base/mainnet', { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
    expect(answer.body).toEqual({ jsonrpc: '2.0', id: 1, result: '0x2105' });
  });

  it("estimates in Base's 2 s blocks", async () => {
    const prices = await get('/v1/gas/base/prices');
    expect(prices.status, JSON.stringify(prices.body)).toBe(200);
    const estimates = prices.body.estimates as Record<string, { estimated_seconds: number }>;
    // slow, standard and fast wait 5, 2 and 1 blocks.
    expect([estimates.slow!.estimated_seconds, estimates.standard!.estimated_seconds, estimates.fast!.estimated_seconds]).toEqual(
      [10, 4, 2],
    );
  });

  it('creates smart wallets on the canonical EntryPoint and factory', async () => {
    const owner = '0x00000000000000000000000000000000000a11ce';
    const v07 = await post('/v1/wallets/create', { owner, chain: 'base', network: 'mainnet' });
    expect(v07.status).toBe(201);
    expect(v07.body).toMatchObject({ entry_point: canonicalErc4337.entryPointV07, factory: canonicalErc4337.factoryV07 });
    const v06 = await post('/v1/wallets/create', { owner, chain: 'base', network: 'mainnet', entry_point_version: '0.6' });
    expect(v06.status).toBe(201);
    expect(v06.body).toMatchObject({ entry_point: canonicalErc4337.entryPointV06, factory: canonicalErc4337.factoryV06 });
  });

  it('shows the preset it runs on in /admin/chains', async () => {
    const chains = await t.admin('GET', '/admin/chains');
    const network = (chains.body.networks as Array<Record<string, unknown>>).find((entry) => entry.chain === 'base');
    expect(network).toMatchObject({
      network: 'mainnet',
      chain_id: 8453,
      testnet: false,
      native_symbol: 'ETH',
      block_time_s: 2,
      fee_model: 'op-stack',
      finality: { model: 'tags', depth: 1200 },
    });
  });
});
