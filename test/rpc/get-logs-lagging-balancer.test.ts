import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { type ProviderSim, startProviderSim } from '../support/provider-sim.ts';
import { devnetChain, startTestService, type TestService } from '../support/service.ts';

/** Emits LOG1(topic = caller, data = calldata) on every call (as in get-logs.test.ts). */
const emitterBytecode = '0x6009600a5f3960095ff3365f5f3733365fa100';
const devAddress = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const hex = (value: number) => `0x${value.toString(16)}`;
const rpcCall = (method: string, params: unknown[] = [], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });

/**
 * The network's only upstream is a load balancer over two nodes, one a block behind, taking turns
 * request by request. Each round mines a block with one log and, once the service serves that block
 * as its tip, asks for the logs up to it: the node behind would answer the range without its last
 * block (no error, no sign). Every answer must hold the new log.
 */
describe('eth_getLogs at the tip through a load balancer whose nodes lag one another', () => {
  let anvil: Devnet;
  let balancer: ProviderSim;
  let t: TestService;
  let key: string;
  let emitter: string;

  const viaAnvil = async (method: string, params: unknown[] = []) => {
    const response = await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(rpcCall(method, params)),
      signal: AbortSignal.timeout(10_000),
    });
    return ((await response.json()) as { result: unknown }).result;
  };
  const viaService = async (method: string, params: unknown[]) => {
    const response = await t.rpc(key, rpcCall(method, params));
    const body = (await response.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };

  beforeAll(async () => {
    anvil = await startTestAnvil();
    balancer = await startProviderSim({ upstream: anvil.url, behaviour: { alternate: { lagBlocks: 1 } } });
    t = await startTestService({
      chains: [devnetChain(balancer.url, { block_time_s: 1, upstreams: [{ url: balancer.url, name: 'balancer' }] })],
    });
    ({ key } = await t.createKey());
    const deployHash = await viaAnvil('eth_sendTransaction', [{ from: devAddress, data: emitterBytecode }]);
    for (const until = Date.now() + 10_000; !emitter; await sleep(20)) {
      emitter = ((await viaAnvil('eth_getTransactionReceipt', [deployHash])) as { contractAddress?: string } | null)
        ?.contractAddress as string;
      if (Date.now() > until) throw new Error('no receipt for the emitter deployment within 10 s');
    }
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    await balancer?.close();
    await anvil?.stop();
  });

  it('20 rounds: a range ending at the new block, and one from the served tip to `latest`, hold every log', async () => {
    const short: string[] = [];
    const logId = (log: { transactionHash: string; logIndex: string }) => `${log.transactionHash}/${log.logIndex}`;
    for (let round = 1; round <= 20; round++) {
      const data = `0x${round.toString(16).padStart(4, '0')}`;
      const hash = await viaAnvil('eth_sendTransaction', [{ from: devAddress, to: emitter, data }]);
      let block = -1;
      for (const until = Date.now() + 10_000; block < 0; await sleep(20)) {
        const receipt = (await viaAnvil('eth_getTransactionReceipt', [hash])) as { blockNumber: string } | null;
        if (receipt) block = Number(receipt.blockNumber);
        if (Date.now() > until) throw new Error(`round ${round}: no receipt within 10 s`);
      }
      // Asked by number, the new block's log is there whichever node the balancer picks.
      const byNumber = (await viaService('eth_getLogs', [
        { address: emitter, fromBlock: hex(block), toBlock: hex(block) },
      ])) as unknown[];
      if (byNumber.length !== 1) short.push(`round ${round}: ${byNumber.length} logs in block ${block} by number`);
      // From the tip the service serves (what a client just read) to `latest`: at least that block's logs.
      const tip = Number(await viaService('eth_blockNumber', []));
      const atTip = (await viaAnvil('eth_getLogs', [{ address: emitter, fromBlock: hex(tip), toBlock: hex(tip) }])) as never[];
      const toLatest = new Set(
        ((await viaService('eth_getLogs', [{ address: emitter, fromBlock: hex(tip) }])) as never[]).map(logId),
      );
      const missing = atTip.filter((log) => !toLatest.has(logId(log)));
      if (missing.length > 0)
        short.push(`round ${round}: ${missing.length} of block ${tip}'s logs missing from ${tip} to latest`);
    }
    expect(short).toEqual([]);
    // Not vacuous: the balancer's node behind did answer some of them, and was asked again.
    const missing = await t.service.ctx.metrics.registry.getSingleMetricAsString('blockyard_upstream_missing_answers_total');
    expect(missing).toMatch(/upstream="balancer"} [1-9]/);
  }, 120_000);
});
