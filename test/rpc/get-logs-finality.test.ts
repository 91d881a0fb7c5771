import { setTimeout as sleep } from 'node:timers/promises';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forwardTo, startRpcServer, type TestRpcServer } from '../support/rpc-server.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** Emits LOG1(topic = caller, data = calldata) on every call (the same contract as get-logs.test.ts). */
const emitterBytecode: Hex = '0x6009600a5f3960095ff3365f5f3733365fa100';
const devAddress = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const emits = 120;

const rpcCall = (method: string, params: unknown[] = [], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return response.text();
}

describe('a network with finality: tags (anvil: finalized = head - 64; finality_depth 5)', () => {
  let t: TestService;
  let upstream: TestRpcServer;
  let key: string;
  let emitter: string;
  const viaAnvil = async (body: unknown) => post(t.anvil.url, body);
  const tagBlock = async (tag: string) =>
    Number.parseInt(JSON.parse(await viaAnvil(rpcCall('eth_getBlockByNumber', [tag, false]))).result.number, 16);

  beforeAll(async () => {
    let anvilUrl = '';
    upstream = await startRpcServer((body) => forwardTo(anvilUrl)(body));
    t = await startTestService({
      chainsFor: (url) => {
        anvilUrl = url;
        return [
          {
            chain: 'ethereum',
            network: 'devnet',
            chain_id: 31337,
            testnet: true,
            dev_methods: true,
            finality: 'tags',
            // Far from anvil's 64: a depth-only answer would differ from the node's.
            finality_depth: 5,
            get_logs_max_range: 16,
            block_time_s: 1,
            upstreams: [{ url: upstream.url }],
          },
        ];
      },
    });
    ({ key } = await t.createKey());
    const deployHash = JSON.parse(
      await viaAnvil(rpcCall('eth_sendTransaction', [{ from: devAddress, data: emitterBytecode }])),
    ).result;
    // anvil may answer a send before its block is in: wait (bounded) for the receipt.
    for (const until = Date.now() + 10_000; !emitter; await sleep(20)) {
      emitter = JSON.parse(await viaAnvil(rpcCall('eth_getTransactionReceipt', [deployHash]))).result?.contractAddress;
      if (Date.now() > until) throw new Error('no receipt for the emitter deployment within 10 s');
    }
    // One log every other block: logs across 240 blocks, so finalized (head - 64) and safe (head - 32)
    // fall among them.
    for (let i = 1; i <= emits; i++) {
      await viaAnvil(
        rpcCall('eth_sendTransaction', [{ from: devAddress, to: emitter, data: `0x${i.toString(16).padStart(4, '0')}` }]),
      );
      await viaAnvil(rpcCall('anvil_mine', ['0x1']));
    }
    const deadline = Date.now() + 10_000;
    while (JSON.parse(await viaAnvil(rpcCall('eth_getLogs', [{ address: emitter, fromBlock: '0x0' }]))).result.length < emits) {
      if (Date.now() > deadline) throw new Error(`anvil does not hold the ${emits} emitted logs 10 s after they were sent`);
      await sleep(50);
    }
    // anvil may still be putting in the last block while the tags are read: read them until the head
    // stays the same around the reads, so the three come from one head.
    let [finalized, safe, head] = [0, 0, -1];
    for (let before = -2, until = Date.now() + 10_000; before !== head; ) {
      if (Date.now() > until) throw new Error('anvil kept adding blocks for 10 s after the last emit');
      before = await tagBlock('latest');
      [finalized, safe, head] = [await tagBlock('finalized'), await tagBlock('safe'), await tagBlock('latest')];
    }
    // The service reads the tags just after its tip moved, so it may hold the node's newest tags while its
    // tip (what `latest` resolves to) is still a block or two behind: wait (bounded) for both.
    for (const until = Date.now() + 10_000; ; await sleep(50)) {
      const { body } = await t.admin('GET', '/admin/chains');
      const { finality, served_tip } = body.networks[0];
      if (finality.finalized === finalized && finality.safe === safe && served_tip === head) break;
      if (Date.now() > until) {
        throw new Error(
          `service tip ${served_tip}, finality ${JSON.stringify(finality)} never reached ${head}, ${finalized}/${safe}`,
        );
      }
    }
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    await upstream?.close();
  });

  it.each(['finalized', 'safe'])('a split eth_getLogs to %s answers exactly what anvil answers', async (tag) => {
    const body = rpcCall('eth_getLogs', [{ address: emitter, fromBlock: '0x3', toBlock: tag }], 7);
    const theirs = await viaAnvil(body);
    const callsBefore = upstream.count('eth_getLogs');
    const ours = await post(`${t.url}/v1/rpc/ethereum/devnet`, body, { 'x-api-key': key });
    expect(upstream.count('eth_getLogs') - callsBefore, 'the range went upstream in pieces').toBeGreaterThan(3);
    const logs = JSON.parse(theirs).result as { blockNumber: string }[];
    const all = JSON.parse(await viaAnvil(rpcCall('eth_getLogs', [{ address: emitter, fromBlock: '0x3' }]))).result;
    // Not a vacuous check: the tag leaves out logs that `latest` (the old resolution) includes.
    expect(logs.length).toBeGreaterThan(20);
    expect(logs.length).toBeLessThan(all.length);
    expect(Number.parseInt(logs.at(-1)!.blockNumber, 16)).toBeLessThanOrEqual(await tagBlock(tag));
    expect(ours).toBe(theirs);
  });

  it('from finalized to latest: the newest logs only, as anvil answers', async () => {
    const body = rpcCall('eth_getLogs', [{ address: emitter, fromBlock: 'finalized', toBlock: 'latest' }], 8);
    const theirs = await viaAnvil(body);
    expect(JSON.parse(theirs).result.length).toBeGreaterThan(20);
    expect(await post(`${t.url}/v1/rpc/ethereum/devnet`, body, { 'x-api-key': key })).toBe(theirs);
  });

  it('the cache keeps for good only blocks the node finalized, not every block finality_depth deep', async () => {
    const head = Number.parseInt(JSON.parse(await viaAnvil(rpcCall('eth_blockNumber'))).result, 16);
    const finalized = await tagBlock('finalized');
    const deepNotFinal = head - 10;
    const read = (block: number) =>
      post(`${t.url}/v1/rpc/ethereum/devnet`, rpcCall('eth_getBlockByNumber', [`0x${block.toString(16)}`, false], 9), {
        'x-api-key': key,
      });
    const upstreamReads = (block: number) =>
      upstream.seen.filter((seen) => seen.body.includes(`"0x${block.toString(16)}",false]`)).length;
    await read(finalized);
    await read(deepNotFinal);
    // A new head drops what was cached only until the head moves.
    await viaAnvil(rpcCall('anvil_mine', ['0x1']));
    for (const until = Date.now() + 10_000; ; await sleep(50)) {
      const { body } = await t.admin('GET', '/admin/chains');
      if (body.networks[0].finality.finalized === finalized + 1) break;
      if (Date.now() > until) throw new Error('the service never saw the new head and its tags');
    }
    expect(await read(finalized)).toBe(
      await viaAnvil(rpcCall('eth_getBlockByNumber', [`0x${finalized.toString(16)}`, false], 9)),
    );
    await read(deepNotFinal);
    expect(upstreamReads(finalized), 'a finalized block is read once').toBe(1);
    expect(upstreamReads(deepNotFinal), '10 deep but not finalized: read again after the head moved').toBe(2);
  });
});
