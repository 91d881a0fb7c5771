import { type Abi, type Address, parseEventLogs, parseUnits } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployTestContracts, type TestContracts } from '../support/contracts.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** The balances API over the real indexer: the index finds the pairs, the chain gives the amounts. */
describe('token balances with the indexer running', () => {
  let t: TestService;
  let key: string;
  let c: TestContracts;
  let tokenAbi: Abi;
  let second: Address;
  const holders = Array.from({ length: 3 }, () => privateKeyToAccount(generatePrivateKey()).address);

  async function send(contract: Address, functionName: string, args: readonly unknown[]) {
    const hash = await c.wallet.writeContract({ address: contract, abi: tokenAbi, functionName, args });
    const receipt = await c.publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 });
    expect(receipt.status).toBe('success');
    return receipt;
  }

  // biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
  async function balancesOf(holder: Address): Promise<any> {
    const response = await fetch(`${t.url}/v1/tokens/ethereum/balances/${holder}`, {
      headers: { 'x-api-key': key },
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, ...((await response.json()) as object) };
  }

  /** Polls until the index has reached `block` (bounded: 20 s). */
  async function balancesFrom(holder: Address, block: bigint) {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const body = await balancesOf(holder);
      if (body.status === 200 && BigInt(body.block_number) >= block) return body;
      if (Date.now() > deadline) throw new Error(`the index did not reach block ${block}: ${JSON.stringify(body)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function expectEqualsChain(holder: Address, block: bigint) {
    const body = await balancesFrom(holder, block);
    const at = BigInt(body.block_number);
    const onChain = [];
    for (const contract of [c.token, second]) {
      const balance = (await c.publicClient.readContract({
        address: contract,
        abi: tokenAbi,
        functionName: 'balanceOf',
        args: [holder],
        blockNumber: at,
      })) as bigint;
      if (balance > 0n) onChain.push([contract.toLowerCase(), balance.toString()]);
    }
    onChain.sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
    expect(body.tokens.map((token: { contract: string; balance: string }) => [token.contract, token.balance])).toEqual(onChain);
    expect(body.total).toBe(onChain.length);
    return body;
  }

  beforeAll(async () => {
    t = await startTestService({
      chainsFor: (url) => [
        {
          chain: 'ethereum',
          network: 'devnet',
          chain_id: 31337,
          testnet: true,
          dev_methods: true,
          finality_depth: 2,
          upstreams: [{ url }],
          indexer: { enabled: true },
        },
      ],
    });
    key = (await t.createKey()).key;
    c = await deployTestContracts(t.anvil.url);
    tokenAbi = c.artifacts.DemoToken.abi;
    const hash = await c.wallet.deployContract({
      abi: tokenAbi,
      bytecode: c.artifacts.DemoToken.bytecode,
      args: ['Second', 'SEC', 6],
    });
    second = (await c.publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 })).contractAddress!;
  }, 120_000);
  afterAll(() => t?.stop());

  it('equals balanceOf at block_number after mints, transfers and burns', async () => {
    const deployer = c.wallet.account.address;
    await send(c.token, 'mint', [deployer, parseUnits('100', 18)]);
    await send(c.token, 'transfer', [holders[0], parseUnits('12.5', 18)]);
    await send(c.token, 'transfer', [holders[1], parseUnits('0.25', 18)]);
    await send(second, 'mint', [holders[0], 42n]);
    await send(second, 'mint', [holders[2], 7n]);
    const last = await send(second, 'burn', [holders[2], 7n]);
    for (const holder of holders) await expectEqualsChain(holder, last.blockNumber);
    const emptied = await balancesFrom(holders[2]!, last.blockNumber);
    expect(emptied.tokens).toEqual([]);
  });

  it('still equals balanceOf after a rebase that emits no Transfer event', async () => {
    const receipt = await send(c.token, 'rebase', [holders[0], parseUnits('99.000001', 18)]);
    expect(parseEventLogs({ abi: tokenAbi, logs: receipt.logs, eventName: 'Transfer' })).toHaveLength(0);
    const zeroed = await send(c.token, 'rebase', [holders[1], 0n]);
    const first = await expectEqualsChain(holders[0]!, zeroed.blockNumber);
    expect(first.tokens.find((token: { contract: string }) => token.contract === c.token.toLowerCase()).formatted_balance).toBe(
      '99.000001',
    );
    const emptied = await expectEqualsChain(holders[1]!, zeroed.blockNumber);
    expect(emptied.tokens).toEqual([]);
  });
});
