import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import { startTwinAnvils, type TwinAnvils } from '../support/twin-anvils.ts';

// anvil's first default account.
const sender = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const recipient = '0x00000000000000000000000000000000000b10c5';
const chainId = 8453;

const started: TwinAnvils[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((twins) => twins.stop()));
});

async function twinAnvils(): Promise<TwinAnvils> {
  const twins = await startTwinAnvils({ chainId });
  started.push(twins);
  return twins;
}

function transfer(nonce: number): Promise<string> {
  return sender.signTransaction({
    chainId,
    nonce,
    to: recipient,
    value: 1000n + BigInt(nonce),
    gas: 21_000n,
    maxFeePerGas: 10_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
    type: 'eip1559',
  });
}

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json()) as { result: T; error?: unknown };
  expect(body.error).toBeUndefined();
  return body.result;
}

interface Block {
  hash: string;
  number: string;
  transactions: string[];
}

async function blocksOf(url: string): Promise<Block[]> {
  const head = Number(await rpc<string>(url, 'eth_blockNumber'));
  return Promise.all(
    Array.from({ length: head + 1 }, (_, n) => rpc<Block>(url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false])),
  );
}

describe('twin anvils', () => {
  it('start on the same chain and genesis, with no block mined until told', async () => {
    const twins = await twinAnvils();
    for (const devnet of [twins.a, twins.b]) {
      expect(await rpc(devnet.url, 'eth_chainId')).toBe('0x2105');
      expect(await rpc(devnet.url, 'eth_blockNumber')).toBe('0x0');
    }
    const [genesisA, genesisB] = await Promise.all([blocksOf(twins.a.url), blocksOf(twins.b.url)]);
    expect(genesisA[0]!.hash).toBe(genesisB[0]!.hash);

    await twins.sendRawTransaction(await transfer(0));
    // --no-mining: a transaction waits in the pool until mine().
    expect(await rpc(twins.a.url, 'eth_blockNumber')).toBe('0x0');
  });

  it('mined together, have the same block hash at every height, blocks with transactions included', async () => {
    const twins = await twinAnvils();
    const first = await twins.sendRawTransaction(await transfer(0));
    const second = await twins.sendRawTransaction(await transfer(1));
    await twins.mine();
    await twins.mine();
    const third = await twins.sendRawTransaction(await transfer(2));
    await twins.mine();

    const [chainA, chainB] = await Promise.all([blocksOf(twins.a.url), blocksOf(twins.b.url)]);
    expect(chainA.map((block) => block.hash)).toEqual(chainB.map((block) => block.hash));
    expect(chainA.map((block) => block.transactions)).toEqual([[], [first, second], [], [third]]);
    expect(new Set(chainA.map((block) => block.hash)).size).toBe(4);
  });

  it('one mined alone is genuinely ahead; the other catches up to the same blocks, transactions and timestamps', async () => {
    const twins = await twinAnvils();
    const first = await twins.sendRawTransaction(await transfer(0));
    await twins.mineOnly('a');
    // b is behind now: this one reaches b only when it catches up, and in the block a mined it in.
    const second = await twins.sendRawTransaction(await transfer(1));
    await twins.mineOnly('a');
    await twins.mineOnly('a');

    expect(await rpc(twins.a.url, 'eth_blockNumber')).toBe('0x3');
    expect(await rpc(twins.b.url, 'eth_blockNumber')).toBe('0x0');
    expect(await rpc(twins.b.url, 'eth_getBlockByNumber', ['0x1', false])).toBeNull();
    expect(await rpc(twins.b.url, 'eth_getTransactionReceipt', [first])).toBeNull();
    expect([twins.height('a'), twins.height('b')]).toEqual([3, 0]);

    await twins.catchUp('b');
    await twins.mine();
    const [chainA, chainB] = await Promise.all([blocksOf(twins.a.url), blocksOf(twins.b.url)]);
    expect(chainB.map((block) => block.hash)).toEqual(chainA.map((block) => block.hash));
    expect(chainB.map((block) => block.transactions)).toEqual([[], [first], [second], [], []]);
    expect(new Set(chainA.map((block) => block.hash)).size).toBe(5);
  });

  it('mine() first catches up a twin that is behind', async () => {
    const twins = await twinAnvils();
    await twins.mineOnly('b');
    await twins.mineOnly('b');
    const sent = await twins.sendRawTransaction(await transfer(0));
    await twins.mine();

    const [chainA, chainB] = await Promise.all([blocksOf(twins.a.url), blocksOf(twins.b.url)]);
    expect(chainA.map((block) => block.hash)).toEqual(chainB.map((block) => block.hash));
    expect(chainA.map((block) => block.transactions)).toEqual([[], [], [], [sent]]);
  });
});
