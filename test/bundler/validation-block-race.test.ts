import { type Address, parseEther } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { forwardTo, startRpcServer, type TestRpcServer } from '../support/rpc-server.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { acceptingAccountCode, bareUserOperation } from './support.ts';

const sender = '0x000000000000000000000000000000000000acc9' as Address;

/**
 * The rule check's two traces run side by side at 'latest'. When a block lands between them (here:
 * the account's code appears, as when the block deploying it is mined), one sees the account and
 * the other does not. The upstream is a proxy in front of anvil that makes exactly that happen once.
 */
describe('a block mined between the two validation traces', () => {
  let service: TestService;
  let proxy: TestRpcServer;
  let anvilUrl = '';
  let key: string;
  /** Armed: the next prestateTracer trace goes first; the next callTracer one waits for it, then for the account's code. */
  let armed: { prestate: boolean; callTree: boolean; prestateAnswered: Promise<void>; answered: () => void } | undefined;

  const anvilRpc = async (method: string, params: unknown[]) => {
    const response = await fetch(anvilUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(10_000),
    });
    return ((await response.json()) as { result: unknown }).result;
  };

  beforeAll(async () => {
    proxy = await startRpcServer(async (body, method) => {
      const tracer =
        method === 'debug_traceCall'
          ? (JSON.parse(body) as { params: [unknown, unknown, { tracer?: string }] }).params[2]?.tracer
          : undefined;
      if (armed?.prestate && tracer === 'prestateTracer') {
        armed.prestate = false;
        const answer = await forwardTo(anvilUrl)(body);
        armed.answered();
        return answer;
      }
      if (armed?.callTree && tracer === 'callTracer') {
        armed.callTree = false;
        await armed.prestateAnswered;
        await anvilRpc('anvil_setCode', [sender, acceptingAccountCode]);
      }
      return forwardTo(anvilUrl)(body);
    });
    service = await startTestService({
      settings: { bundler_keys: devnetExecutorKeys[0] },
      chainsFor: (url) => {
        anvilUrl = url;
        return [
          {
            chain: 'ethereum',
            network: 'devnet',
            chain_id: 31337,
            testnet: true,
            dev_methods: true,
            upstreams: [{ url: proxy.url }],
            bundler: { enabled: true },
          },
        ];
      },
    });
    await installErc4337Contracts(anvilUrl);
    await anvilRpc('anvil_setBalance', [sender, `0x${parseEther('1').toString(16)}`]);
    key = (await service.createKey()).key;
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await proxy?.close();
  });

  const bundler = async (method: string, params: unknown[]) => {
    const response = await fetch(`${service.url}/v1/bundler/ethereum/devnet`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(15_000),
    });
    // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
    return (await response.json()) as { result?: any; error?: { code: number; message: string } };
  };

  it('does not refuse the op for a rule that only the mix of two blocks broke', async () => {
    const base = bareUserOperation(sender);
    await anvilRpc('anvil_setCode', [sender, acceptingAccountCode]);
    const estimate = await bundler('eth_estimateUserOperationGas', [base, entryPoint07Address]);
    expect(estimate.error).toBeUndefined();
    await anvilRpc('anvil_setCode', [sender, '0x']);

    let answered = () => {};
    const prestateAnswered = new Promise<void>((resolve) => {
      answered = resolve;
    });
    armed = { prestate: true, callTree: true, prestateAnswered, answered };
    const sent = await bundler('eth_sendUserOperation', [{ ...base, ...estimate.result }, entryPoint07Address]);
    // The race happened: the first pair of traces saw the account without code, then with it.
    expect(armed.prestate || armed.callTree).toBe(false);
    expect(sent.error).toBeUndefined();
    expect(sent.result).toMatch(/^0x[0-9a-f]{64}$/);
  }, 60_000);
});
