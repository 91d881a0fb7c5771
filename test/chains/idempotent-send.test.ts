import { type Hex, keccak256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { type ProviderSim, startProviderSim } from '../support/provider-sim.ts';
import { answeringChainId, rpcAnswer, startRpcServer } from '../support/rpc-server.ts';
import { startTestService } from '../support/service.ts';
import { call, createPoolFixture, direct, resultOf } from './pool-setup.ts';

const devAccount = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const fixture = createPoolFixture();
const sims: ProviderSim[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((sim) => sim.close()));
  await fixture.cleanUp();
});

/** A signed transfer from anvil's first account with this nonce (different `value`s make different transactions). */
function signed(nonce: number, value: bigint): Promise<Hex> {
  return devAccount.signTransaction({
    chainId: 31337,
    type: 'eip1559',
    to: devAccount.address,
    value,
    nonce,
    gas: 21_000n,
    maxFeePerGas: 10_000_000_000n,
    maxPriorityFeePerGas: 1n,
  });
}

const send = (raw: Hex, id = 1) => call('eth_sendRawTransaction', [raw], id);

/** anvil may answer a send before it mines: until the transaction's receipt is there (bounded). */
async function minedOn(anvil: Devnet, hash: string): Promise<void> {
  for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 20))) {
    if (resultOf(await direct(anvil.url, call('eth_getTransactionReceipt', [hash]))) !== null) return;
  }
  throw new Error(`${hash} was not mined within 10 s`);
}

/** A pool of two upstreams of one anvil: the anvil itself and a simulator in front of it. */
async function twoUpstreamsOf(anvil: Devnet) {
  const sim = await startProviderSim({ upstream: anvil.url });
  sims.push(sim);
  const pool = fixture.pool([anvil.url, sim.url], { chainId: 31337 });
  await pool.identified();
  return pool;
}

describe('eth_sendRawTransaction is idempotent: the same signed transaction sent again answers its hash', () => {
  it('mined already (anvil answers "nonce too low"): the same transaction gets its hash, through two upstreams', async () => {
    const [anvil] = await fixture.anvils(1);
    const pool = await twoUpstreamsOf(anvil!);
    const raw = await signed(0, 1n);
    const first = resultOf(await pool.broadcast(send(raw, 1)));
    expect(first).toBe(keccak256(raw));
    await minedOn(anvil!, first as string);
    // Both upstreams now answer "nonce too low": each knows the transaction, so the hash again.
    expect(await direct(anvil!.url, send(raw, 9))).toContain('nonce too low');
    expect(await pool.broadcast(send(raw, 2))).toBe(`{"jsonrpc":"2.0","id":2,"result":"${first}"}`);
    expect(resultOf(await pool.broadcast(send(raw, 3)))).toBe(first);
  });

  it('still pending (anvil answers "transaction already imported"): the same transaction gets its hash', async () => {
    const [anvil] = await fixture.anvils(1);
    await direct(anvil!.url, call('evm_setAutomine', [false]));
    const pool = await twoUpstreamsOf(anvil!);
    const raw = await signed(0, 2n);
    const first = resultOf(await pool.broadcast(send(raw, 1)));
    expect(await direct(anvil!.url, send(raw, 9))).toContain('already imported');
    expect(resultOf(await pool.broadcast(send(raw, 2)))).toBe(first);
    expect(first).toBe(keccak256(raw));
  });

  it('another transaction with a used nonce gets the node’s own error, unchanged', async () => {
    const [anvil] = await fixture.anvils(1);
    const pool = await twoUpstreamsOf(anvil!);
    const sent = await signed(0, 3n);
    await pool.broadcast(send(sent));
    await minedOn(anvil!, keccak256(sent));
    const other = await signed(0, 4n);
    const theirs = await direct(anvil!.url, send(other, 5));
    expect(theirs).toContain('nonce too low');
    expect(await pool.broadcast(send(other, 5))).toBe(theirs);
  });

  it.each([
    ['geth', -32000, 'already known'],
    ['erigon', -32000, 'ALREADY_EXISTS: already known'],
    ['besu', -32000, 'Known transaction'],
    ['nethermind', -32010, 'AlreadyKnown'],
    ['openethereum', -32010, 'Transaction with the same hash was already imported.'],
  ])('%s’s words for a transaction it has (%i %s): its hash', async (_node, code, message) => {
    const node = fixture.server(
      await startRpcServer(answeringChainId(31337, async (body) => ({ body: rpcAnswer(body, { error: { code, message } }) }))),
    );
    const pool = fixture.pool([node.url], { chainId: 31337 });
    await pool.identified();
    const raw = await signed(7, 6n);
    expect(await pool.broadcast(send(raw, 4))).toBe(`{"jsonrpc":"2.0","id":4,"result":"${keccak256(raw)}"}`);
  });

  it('"nonce too low" from a node that does not know the transaction: the node’s error', async () => {
    const node = fixture.server(
      await startRpcServer(
        answeringChainId(31337, async (body, method) => ({
          body:
            method === 'eth_getTransactionByHash'
              ? rpcAnswer(body, { result: null })
              : rpcAnswer(body, { error: { code: -32000, message: 'nonce too low: next nonce 8, tx nonce 7' } }),
        })),
      ),
    );
    const pool = fixture.pool([node.url], { chainId: 31337 });
    await pool.identified();
    const answer = await pool.broadcast(send(await signed(7, 7n), 4));
    expect(answer).toBe('{"jsonrpc":"2.0","id":4,"error":{"code":-32000,"message":"nonce too low: next nonce 8, tx nonce 7"}}');
    expect(node.count('eth_getTransactionByHash')).toBe(1);
  });

  it('through the proxy: a retried send answers the same hash', async () => {
    const t = await startTestService();
    try {
      const { key } = await t.createKey({ scopes: ['rpc:read', 'rpc:write'] });
      const raw = await signed(0, 5n);
      const answers = [];
      for (let i = 0; i < 2; i++) answers.push(await (await t.rpc(key, JSON.parse(send(raw, i)))).json());
      expect(answers).toEqual([
        { jsonrpc: '2.0', id: 0, result: keccak256(raw) },
        { jsonrpc: '2.0', id: 1, result: keccak256(raw) },
      ]);
    } finally {
      await t.stop();
    }
  });
});
