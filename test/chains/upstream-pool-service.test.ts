import { createWalletClient, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { eventually } from '../support/cli.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { call, direct, resultOf } from './pool-setup.ts';

const devAccount = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');

function metricLine(text: string, name: string, upstream: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(`upstream="${upstream}"`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe('a network with several upstreams, through the service', () => {
  let t: TestService;
  let key: string;
  let anvils: Devnet[];
  const hostOf = (anvil: Devnet) => new URL(anvil.url).host;

  beforeAll(async () => {
    anvils = await Promise.all([startTestAnvil(), startTestAnvil()]);
    t = await startTestService({
      chains: [
        {
          chain: 'ethereum',
          network: 'devnet',
          chain_id: 31337,
          testnet: true,
          block_time_s: 0.25,
          upstreams: anvils.map((anvil) => ({ url: anvil.url, timeout_ms: 2_000, max_concurrency: 16 })),
        },
      ],
    });
    key = (await t.createKey()).key;
  });
  afterAll(async () => {
    await t?.stop();
    await Promise.all((anvils ?? []).map((anvil) => anvil.stop()));
  });

  it('sends eth_sendRawTransaction to every upstream', async () => {
    const wallet = createWalletClient({ account: devAccount, chain: foundry, transport: http(anvils[0]!.url) });
    const signed = await wallet.signTransaction(
      await wallet.prepareTransactionRequest({ to: devAccount.address, value: parseEther('1') }),
    );
    const answer = (await (
      await t.rpc(key, { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [signed] })
    ).json()) as {
      result: string;
    };
    for (const anvil of anvils) {
      await eventually(
        async () => resultOf(await direct(anvil.url, call('eth_getTransactionByHash', [answer.result]))) ?? undefined,
        {
          timeoutMs: 5_000,
          intervalMs: 50,
          what: `the transaction on ${anvil.url}`,
        },
      );
    }
  });

  it('exports latency, breaker, head and lag per upstream in /metrics', async () => {
    for (let i = 0; i < 5; i++) await t.rpc(key, { jsonrpc: '2.0', id: i, method: 'eth_blockNumber', params: [] });
    // The head gauge follows the polls (every block time, 0.25 s here): the transaction above mined block 1.
    const text = await eventually(
      async () => {
        const body = await (await fetch(`${t.url}/metrics`)).text();
        return anvils.every((anvil) => metricLine(body, 'blockyard_upstream_head_block', hostOf(anvil)) === 1) ? body : undefined;
      },
      { timeoutMs: 5_000, intervalMs: 100, what: 'head gauges at block 1' },
    );
    for (const anvil of anvils) {
      expect(metricLine(text, 'blockyard_upstream_attempt_duration_seconds_count', hostOf(anvil))).toBeGreaterThan(0);
      expect(metricLine(text, 'blockyard_upstream_breaker_state', hostOf(anvil))).toBe(0);
      expect(metricLine(text, 'blockyard_upstream_head_block', hostOf(anvil))).toBe(1);
      expect(metricLine(text, 'blockyard_upstream_lag_blocks', hostOf(anvil))).toBe(0);
    }
    expect(text).not.toContain(anvils[0]!.url);
  });

  it('keeps answering and stays healthy with one upstream killed; its breaker opens', async () => {
    process.kill(anvils[1]!.pid, 'SIGKILL');
    for (let i = 0; i < 10; i++) {
      const answer = (await (await t.rpc(key, { jsonrpc: '2.0', id: i, method: 'eth_chainId', params: [] })).json()) as {
        result: string;
      };
      expect(answer.result).toBe('0x7a69');
    }
    const health = await fetch(`${t.url}/healthz`, { signal: AbortSignal.timeout(10_000) });
    expect(health.status).toBe(200);
    await eventually(
      async () => {
        const text = await (await fetch(`${t.url}/metrics`)).text();
        return metricLine(text, 'blockyard_upstream_breaker_state', hostOf(anvils[1]!)) === 2 ? text : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 100, what: 'the breaker of the killed upstream to open' },
    );
  });
});
