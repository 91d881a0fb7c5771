import { randomBytes } from 'node:crypto';
import { entryPoint07Address } from 'viem/account-abstraction';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareUserOperation } from '../bundler/support.ts';
import { type OutageService, type OwnAnvil, startOutageService, startOwnAnvil } from './outage-service.ts';
import { recoveredWithin } from './probes.ts';

/**
 * Routes and methods that read the chain through the service's own viem clients (a wallet's address
 * from its factory, token balances by `balanceOf`, the bundler's fee quote) while the only upstream is
 * down: the spec's answers of an unavailable upstream, never a 500 or an "internal error".
 */
describe('outage: answers of routes that read the chain through viem while the upstream is down', () => {
  let anvil: OwnAnvil;
  let s: OutageService;

  beforeAll(async () => {
    anvil = await startOwnAnvil();
    s = await startOutageService({ anvil });
  }, 90_000);
  afterAll(async () => {
    await s?.close();
    await anvil?.close();
  }, 60_000);

  const headers = () => ({ 'x-api-key': s.target.key, 'content-type': 'application/json' });
  const createWallet = () =>
    fetch(`${s.target.url}/v1/wallets/create`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({ owner: `0x${randomBytes(20).toString('hex')}`, chain: 'ethereum', network: 'devnet' }),
      signal: AbortSignal.timeout(5_000),
    });
  const rpc = async (path: string, method: string, params: unknown[]) => {
    const response = await fetch(`${s.target.url}${path}`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(5_000),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
  };

  it('POST /v1/wallets/create is 503 with Retry-After, alchemy_getTokenBalances and the bundler (fee quote, estimate, send) -32603 "upstream unavailable"', async () => {
    expect((await createWallet()).status).toBe(201);
    await anvil.stop();
    try {
      const wallet = await createWallet();
      expect({ status: wallet.status, body: await wallet.json() }).toEqual({
        status: 503,
        body: { error: { code: 'service_unavailable', message: expect.stringContaining('upstream'), status: 503 } },
      });
      expect(wallet.headers.get('retry-after')).toMatch(/^\d+$/);

      const balances = await rpc('/v1/rpc/ethereum/devnet', 'alchemy_getTokenBalances', [
        s.target.holder,
        ['0x5fbdb2315678afecb367f032d93f642f64180aa3'],
      ]);
      expect(balances.error).toMatchObject({ code: -32603, message: expect.stringMatching(/^upstream unavailable/) });

      const quote = await rpc('/v1/bundler/ethereum/devnet', 'pimlico_getUserOperationGasPrice', []);
      expect(quote.error).toMatchObject({ code: -32603, message: expect.stringMatching(/^upstream unavailable/) });

      // Not "-32500 the operation fails in simulation": the op was never simulated.
      const op = {
        ...bareUserOperation('0x000000000000000000000000000000000000a0a1', '0x0'),
        callGasLimit: '0x10000',
        verificationGasLimit: '0x10000',
        preVerificationGas: '0x10000',
        maxFeePerGas: '0x3b9aca00',
        maxPriorityFeePerGas: '0x3b9aca00',
      };
      for (const method of ['eth_estimateUserOperationGas', 'eth_sendUserOperation']) {
        const answer = await rpc('/v1/bundler/ethereum/devnet', method, [op, entryPoint07Address]);
        expect({ method, error: answer.error }).toMatchObject({
          method,
          error: { code: -32603, message: expect.stringMatching(/^upstream unavailable/) },
        });
      }
    } finally {
      await anvil.start();
    }
    await recoveredWithin(s.target, 10_000);
    expect((await createWallet()).status).toBe(201);
  }, 60_000);
});
