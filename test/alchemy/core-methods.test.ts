import { TokenBalanceType } from 'alchemy-sdk';
import { type Address, erc20Abi, type Hex, numberToHex, pad, parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { receiptsOfBlock, receivedTransfers, tokenHoldings } from '../../examples/alchemy-sdk-transfers.ts';
import { compileContracts } from '../../src/contracts/compile.ts';
import { demoAccounts } from '../../src/demo/demo-plan.ts';
import { type AlchemyChain, startAlchemyChain } from './support.ts';

const { dev, alice, bob, carol } = demoAccounts;

/** alchemy-sdk's token, receipt and unknown-method calls on the URL form, against the chain itself. */
describe('alchemy-sdk core methods answered by Blockyard', () => {
  let t: AlchemyChain;
  /** Two more ERC-20 tokens bob received: three tokens in all, to page through. */
  let extraTokens: Address[];

  beforeAll(async () => {
    t = await startAlchemyChain({ bundler: true });
    const { DemoToken } = await compileContracts();
    extraTokens = [];
    for (const [name, symbol, decimals] of [
      ['Extra One', 'EX1', 18],
      ['Extra Two', 'EX2', 8],
    ] as const) {
      const hash = await t.chain.wallet.deployContract({
        abi: DemoToken.abi,
        bytecode: DemoToken.bytecode,
        args: [name, symbol, decimals],
      });
      const token = (await t.chain.publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
      await t.chain.wallet.writeContract({ address: token, abi: DemoToken.abi, functionName: 'mint', args: [bob, 10n ** 20n] });
      extraTokens.push(token);
    }
    await t.chain.synced();
  }, 180_000);
  afterAll(() => t?.chain.service.stop());

  const balanceOf = (token: Address, holder: Address) =>
    t.chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder] });

  it('getTokenBalances equals balanceOf for every token, by list and by "erc20" with pageKey', async () => {
    const tokens = [t.demo.token, ...extraTokens];
    for (const holder of [dev, alice, bob, carol]) {
      const listed = await t.alchemy.core.getTokenBalances(holder, tokens);
      expect(listed.address).toBe(holder.toLowerCase());
      expect(listed.tokenBalances.map((entry) => entry.contractAddress)).toEqual(tokens.map((token) => token.toLowerCase()));
      for (const [i, entry] of listed.tokenBalances.entries()) {
        expect(entry.error).toBeNull();
        expect(entry.tokenBalance).toBe(pad(numberToHex(await balanceOf(tokens[i]!, holder)), { size: 32 }));
      }
      // "erc20": every token the index saw the address hold, each balance as the chain has it.
      const held = await t.alchemy.core.getTokenBalances(holder, { type: TokenBalanceType.ERC20 });
      expect(held.tokenBalances.length).toBeGreaterThan(0);
      for (const entry of held.tokenBalances) {
        expect(BigInt(entry.tokenBalance!)).toBe(await balanceOf(entry.contractAddress as Address, holder));
      }
    }
    // getTokensForOwner: the SDK's own mix of getTokenBalances and getTokenMetadata.
    const owned = await t.alchemy.core.getTokensForOwner(bob);
    expect(owned.tokens.map((token) => token.symbol).sort()).toEqual(['BDUSD', 'EX1', 'EX2']);
    for (const token of owned.tokens) {
      expect(BigInt(token.rawBalance!)).toBe(await balanceOf(token.contractAddress as Address, bob));
    }
    const all = await t.alchemy.core.getTokenBalances(bob);
    expect(all.tokenBalances.map((entry) => entry.contractAddress).sort()).toEqual(
      tokens.map((token) => token.toLowerCase()).sort(),
    );
    // One token a page: three pages, the same tokens in the same order.
    const paged: string[] = [];
    let pageKey: string | undefined;
    for (let page = 0; page < 10; page++) {
      const answer = await t.rpc('alchemy_getTokenBalances', [bob, 'erc20', { maxCount: 1, ...(pageKey ? { pageKey } : {}) }]);
      const result = answer.result as { tokenBalances: { contractAddress: string }[]; pageKey?: string };
      paged.push(...result.tokenBalances.map((entry) => entry.contractAddress));
      pageKey = result.pageKey;
      if (pageKey === undefined) break;
    }
    expect(paged).toEqual(all.tokenBalances.map((entry) => entry.contractAddress));
    expect(paged.length).toBe(3);
    await expect(t.alchemy.core.getTokenBalances(bob, { type: TokenBalanceType.ERC20, pageKey: 'bogus' })).rejects.toMatchObject({
      error: { code: -32602, message: expect.stringMatching(/^invalid parameter 'pageKey'/) },
    });
    const bobsKey = ((await t.rpc('alchemy_getTokenBalances', [bob, 'erc20', { maxCount: 1 }])).result as { pageKey: string })
      .pageKey;
    expect((await t.rpc('alchemy_getTokenBalances', [alice, 'erc20', { pageKey: bobsKey }])).error?.message).toMatch(
      /^invalid parameter 'pageKey': belongs to another query/,
    );
    // Alchemy's other token specifications are refused with what to use instead.
    for (const [spec, instead] of [
      [
        'NATIVE_TOKEN',
        /^invalid parameter 'params\[1\]': "NATIVE_TOKEN" is not served here: read the native balance with eth_getBalance/,
      ],
      ['DEFAULT_TOKENS', /^invalid parameter 'params\[1\]': "DEFAULT_TOKENS" \(a hosted top-100 list\) is not served here/],
    ] as const) {
      expect((await t.rpc('alchemy_getTokenBalances', [bob, spec])).error).toMatchObject({
        code: -32602,
        message: expect.stringMatching(instead),
      });
    }
  });

  it('getTokenMetadata reads the token, nulls for a contract that is not one', async () => {
    expect(await t.alchemy.core.getTokenMetadata(t.demo.token)).toEqual({
      decimals: 6,
      logo: null,
      name: 'Blockyard Demo USD',
      symbol: 'BDUSD',
    });
    expect(await t.alchemy.core.getTokenMetadata(extraTokens[1]!)).toMatchObject({ decimals: 8, symbol: 'EX2' });
    expect(await t.alchemy.core.getTokenMetadata(t.demo.nft)).toEqual({ decimals: null, logo: null, name: null, symbol: null });
    expect((await t.rpc('alchemy_getTokenMetadata', ['0x1234'])).error).toEqual({
      code: -32602,
      message: expect.stringMatching(/^invalid parameter 'params\[0\]'/),
    });
  });

  it('alchemy_getTokenAllowance answers allowance(owner, spender) as a decimal string', async () => {
    const token = extraTokens[0]!;
    const amount = 12_345_678_901_234_567_890n;
    const hash = await t.chain.wallet.writeContract({
      address: token,
      abi: erc20Abi,
      functionName: 'approve',
      args: [carol, amount],
    });
    await t.chain.publicClient.waitForTransactionReceipt({ hash });
    const allowance = (owner: string, spender: string, contract: string = token) =>
      t.rpc('alchemy_getTokenAllowance', [{ contract, owner, spender }]);
    expect((await allowance(dev, carol)).result).toBe(amount.toString());
    expect((await allowance(dev.toLowerCase(), carol.toUpperCase().replace('0X', '0x'))).result).toBe(amount.toString());
    expect((await allowance(carol, dev)).result).toBe('0');
    // No code there: not a token.
    expect((await allowance(dev, carol, alice)).error).toEqual({
      code: -32602,
      message: `invalid parameter 'contract': ${alice.toLowerCase()} does not answer allowance(owner, spender) as an ERC-20 token does`,
    });
    expect((await t.rpc('alchemy_getTokenAllowance', [{ contract: token, owner: dev }])).error).toEqual({
      code: -32602,
      message: "invalid parameter 'spender': is required",
    });
    expect(
      (await t.rpc('alchemy_getTokenAllowance', [{ contract: token, owner: dev, spender: carol, block: 'latest' }])).error?.code,
    ).toBe(-32602);
    expect((await t.rpc('alchemy_getTokenAllowance', [token, dev, carol])).error?.message).toMatch(/expected 1 params, got 3/);
  });

  it('getTransactionReceipts equals eth_getTransactionReceipt for each transaction of a block', async () => {
    // Three transactions in one block: automine off while they are sent.
    await t.chain.anvilRpc('evm_setAutomine', [false]);
    const hashes: Hex[] = [];
    for (const to of [alice, bob, carol]) {
      hashes.push(
        (await t.chain.anvilRpc('eth_sendTransaction', [{ from: dev, to, value: numberToHex(parseEther('0.01')) }])) as Hex,
      );
    }
    await t.chain.anvilRpc('evm_mine', []);
    await t.chain.anvilRpc('evm_setAutomine', [true]);
    const receipt = (await t.chain.anvilRpc('eth_getTransactionReceipt', [hashes[0]])) as { blockNumber: Hex; blockHash: Hex };
    const direct = await Promise.all(hashes.map((hash) => t.chain.anvilRpc('eth_getTransactionReceipt', [hash])));

    const byNumber = await t.alchemy.core.getTransactionReceipts({ blockNumber: receipt.blockNumber });
    expect(byNumber.receipts).toHaveLength(3);
    const raw = await t.rpc('alchemy_getTransactionReceipts', [{ blockHash: receipt.blockHash }]);
    expect(raw.result).toEqual({ receipts: direct });
    expect(byNumber.receipts).toEqual(direct);
    expect(await t.alchemy.core.getTransactionReceipts({ blockNumber: '0xffffff' })).toEqual({ receipts: null });
    expect(
      (await t.rpc('alchemy_getTransactionReceipts', [{ blockNumber: '0x1', blockHash: receipt.blockHash }])).error?.code,
    ).toBe(-32602);
  });

  it('answers -32601 naming any other alchemy_ method, and asks data:read for these', async () => {
    expect((await t.rpc('alchemy_getNFTs', [{}])).error).toEqual({
      code: -32601,
      message: "the method 'alchemy_getNFTs' is not available on ethereum/devnet",
    });
    const call = { jsonrpc: '2.0', id: 7, method: 'alchemy_getTokenMetadata', params: [t.demo.token] };
    const rpcOnly = (await t.chain.service.createKey({ scopes: ['rpc:read'] })).key;
    expect((await t.chain.service.rpc(rpcOnly, call)).status).toBe(403);
    const dataOnly = (await t.chain.service.createKey({ scopes: ['data:read'] })).key;
    const answered = await t.chain.service.rpc(dataOnly, [call, { ...call, id: 8, method: 'eth_blockNumber', params: [] }]);
    expect(answered.status).toBe(200);
    const [metadata, blockNumber] = (await answered.json()) as { id: number; result?: unknown; error?: { code: number } }[];
    expect(metadata!.result).toMatchObject({ symbol: 'BDUSD' });
    expect(blockNumber!.error?.code).toBe(-32010);
  });

  it('examples/alchemy-sdk-transfers.ts runs as written: transfers by pageKey, holdings, receipts', async () => {
    const transfers = await receivedTransfers(t.alchemy, bob);
    expect(new Set(transfers.map((item) => item.category))).toEqual(
      new Set(['external', 'internal', 'erc20', 'erc721', 'erc1155']),
    );
    const holdings = await tokenHoldings(t.alchemy, bob);
    expect(holdings.map((token) => token.symbol).sort()).toEqual(['BDUSD', 'EX1', 'EX2']);
    for (const token of holdings) expect(token.amount).toBe(await balanceOf(token.contract as Address, bob));
    const last = transfers.at(-1)!;
    const receipts = await receiptsOfBlock(t.alchemy, last.blockNum);
    expect(receipts.map((receipt) => receipt.transactionHash)).toContain(last.hash);
  });

  it('is served on the bundler URL and the WebSocket URL too', async () => {
    const call = { jsonrpc: '2.0', id: 1, method: 'alchemy_getTokenMetadata', params: [t.demo.token] };
    const bundler = await fetch(`${t.chain.service.url}/v1/bundler/ethereum/devnet/${t.key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(call),
      signal: AbortSignal.timeout(10_000),
    });
    expect(bundler.status).toBe(200);
    expect(((await bundler.json()) as { result: unknown }).result).toMatchObject({ symbol: 'BDUSD', decimals: 6 });

    const socket = new WebSocket(`${t.chain.service.url.replace('http://', 'ws://')}/v1/ws/ethereum/devnet/${t.key}`);
    try {
      await withTimeout(
        new Promise((resolve, reject) => {
          socket.once('open', resolve);
          socket.once('error', reject);
        }),
        10_000,
      );
      const answer = new Promise<string>((resolve) => socket.once('message', (data) => resolve(String(data))));
      socket.send(JSON.stringify({ ...call, method: 'alchemy_getTransactionReceipts', params: [{ blockNumber: '0x1' }] }));
      const direct = await t.chain.anvilRpc('eth_getBlockReceipts', ['0x1']);
      expect(JSON.parse(await withTimeout(answer, 10_000))).toEqual({ jsonrpc: '2.0', id: 1, result: { receipts: direct } });
    } finally {
      socket.close();
    }
  });

  it('a contract that emitted an ERC-20 transfer but reverts balanceOf is left out of "erc20", null in a list; getTokensForOwner still works', async () => {
    const hash = await t.chain.wallet.deployContract({ abi: [], bytecode: transferEmitterInitCode(bob) });
    const broken = (await t.chain.publicClient.waitForTransactionReceipt({ hash })).contractAddress!.toLowerCase() as Address;
    await t.chain.publicClient.waitForTransactionReceipt({ hash: await t.chain.wallet.sendTransaction({ to: broken }) });
    await t.chain.synced();
    // The index saw bob receive it...
    const transfers = await t.rpc('alchemy_getAssetTransfers', [
      { toAddress: bob, contractAddresses: [broken], category: ['erc20'], fromBlock: '0x0' },
    ]);
    expect((transfers.result as { transfers: { rawContract: { address: string } }[] }).transfers).toHaveLength(1);
    // ...and a list naming it answers as Alchemy documents a failed read.
    expect((await t.rpc('alchemy_getTokenBalances', [bob, [broken]])).result).toEqual({
      address: bob.toLowerCase(),
      tokenBalances: [{ contractAddress: broken, tokenBalance: null, error: 'balanceOf reverted' }],
    });
    const held = (await t.rpc('alchemy_getTokenBalances', [bob, 'erc20'])).result as {
      tokenBalances: { contractAddress: string }[];
    };
    expect(held.tokenBalances.map((entry) => entry.contractAddress)).not.toContain(broken);
    expect(held.tokenBalances).toHaveLength(3);
    const owned = await t.alchemy.core.getTokensForOwner(bob);
    expect(owned.tokens.map((token) => token.symbol).sort()).toEqual(['BDUSD', 'EX1', 'EX2']);
  });
});

/**
 * A contract that, called with no data, emits `Transfer(0, to, 1)` as an ERC-20 does, and reverts any
 * other call (balanceOf among them): CALLDATASIZE ISZERO PUSH1 8 JUMPI; PUSH0 PUSH0 REVERT; JUMPDEST
 * PUSH1 1 PUSH0 MSTORE PUSH20 to PUSH0 PUSH32 Transfer PUSH1 32 PUSH0 LOG3 STOP.
 */
function transferEmitterInitCode(to: Address): Hex {
  const transferTopic = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
  const runtime = `3615600857${'5f5ffd'}5b60015f5273${to.slice(2).toLowerCase()}5f7f${transferTopic}60205fa300`;
  const length = (runtime.length / 2).toString(16).padStart(2, '0');
  return `0x60${length}600c60003960${length}6000f3${runtime}`;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)),
  ]);
}
