import { type Abi, type Address, formatUnits, parseEventLogs, parseUnits } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployTestContracts, type TestContracts } from '../support/contracts.ts';
import { createResponseChecker, type OpenApiDocument } from '../support/openapi.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { recordHoldings, recordIndexedHead } from './indexed-rows.ts';

const network = 'ethereum/devnet';
const template = '/v1/tokens/{chain}/balances/{address}';

describe('GET /v1/tokens/{chain}/balances/{address}', () => {
  let t: TestService;
  let key: string;
  let c: TestContracts;
  let check: ReturnType<typeof createResponseChecker>;
  let tokenAbi: Abi;
  /** DemoToken 18 decimals, a 6-decimal and a 0-decimal token, and one the holder emptied. */
  let tokens: Address[];
  let emptied: Address;
  const holder = privateKeyToAccount(generatePrivateKey()).address;

  // biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
  async function get(path: string, apiKey = key): Promise<{ status: number; body: any }> {
    const response = await fetch(`${t.url}${path}`, {
      headers: apiKey ? { 'x-api-key': apiKey } : {},
      signal: AbortSignal.timeout(10_000),
    });
    const body = await response.json();
    check('GET', template, response.status, body);
    return { status: response.status, body };
  }

  async function send(contract: Address, functionName: string, args: readonly unknown[]) {
    const hash = await c.wallet.writeContract({ address: contract, abi: tokenAbi, functionName, args });
    const receipt = await c.publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 });
    expect(receipt.status).toBe('success');
    return receipt;
  }

  async function deployToken(name: string, symbol: string, decimals: number): Promise<Address> {
    const hash = await c.wallet.deployContract({
      abi: tokenAbi,
      bytecode: c.artifacts.DemoToken.bytecode,
      args: [name, symbol, decimals],
    });
    const receipt = await c.publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 });
    return receipt.contractAddress!;
  }

  /** What the chain says: every non-zero balanceOf at the block, ordered by contract. */
  async function chainBalances(contracts: readonly Address[], blockNumber: bigint) {
    const read = await Promise.all(
      contracts.map(async (contract) => ({
        contract: contract.toLowerCase(),
        balance: (await c.publicClient.readContract({
          address: contract,
          abi: tokenAbi,
          functionName: 'balanceOf',
          args: [holder],
          blockNumber,
        })) as bigint,
      })),
    );
    return read.filter((entry) => entry.balance > 0n).sort((a, b) => (a.contract < b.contract ? -1 : 1));
  }

  beforeAll(async () => {
    t = await startTestService();
    key = (await t.createKey()).key;
    check = createResponseChecker((await (await fetch(`${t.url}/v1/openapi.json`)).json()) as OpenApiDocument);
    c = await deployTestContracts(t.anvil.url);
    tokenAbi = c.artifacts.DemoToken.abi;
    tokens = [c.token, await deployToken('Six', 'SIX', 6), await deployToken('Whole', 'WHL', 0)];
    emptied = await deployToken('Gone', 'GONE', 18);
    await send(c.token, 'mint', [holder, parseUnits('1234.5', 18)]);
    await send(tokens[1]!, 'mint', [holder, 1n]);
    await send(tokens[2]!, 'mint', [holder, 77n]);
    await send(emptied, 'mint', [holder, 5n]);
    await send(emptied, 'burn', [holder, 5n]);
  });
  afterAll(() => t?.stop());

  it('says so when the network has no index (before any block is indexed)', async () => {
    const { status, body } = await get(`/v1/tokens/ethereum/balances/${holder}`);
    expect(status).toBe(404);
    expect(body.error.message).toBe(
      'token balances need the chain index, and ethereum/devnet is not indexed (set indexer.enabled for it)',
    );
  });

  it('equals balanceOf at block_number: non-zero balances only, ordered by contract, with exact formatting', async () => {
    // The index knows the pairs (the tokens, the emptied one, an NFT contract and an address without code).
    await recordHoldings(t.database.db, network, holder, [
      ...tokens,
      emptied,
      c.nft,
      '0x000000000000000000000000000000000000beef',
    ]);
    const head = await recordIndexedHead(t.database.db, network, c.publicClient);
    const { status, body } = await get(`/v1/tokens/ethereum/balances/${holder}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      address: holder.toLowerCase(),
      chain: 'ethereum',
      network: 'devnet',
      block_number: Number(head),
      page: 1,
      total: 3,
    });
    const expected = await chainBalances([...tokens, emptied, c.nft], head);
    expect(body.tokens.map((entry: { contract: string; balance: string }) => [entry.contract, entry.balance])).toEqual(
      expected.map((entry) => [entry.contract, entry.balance.toString()]),
    );
    const byContract = new Map(body.tokens.map((entry: { contract: string }) => [entry.contract, entry]));
    expect(byContract.get(c.token.toLowerCase())).toEqual({
      contract: c.token.toLowerCase(),
      symbol: 'TST',
      name: 'Test Token',
      decimals: 18,
      balance: parseUnits('1234.5', 18).toString(),
      formatted_balance: '1234.5',
      usd_value: null,
      logo_url: null,
      is_spam: false,
      spam_reasons: [],
    });
    expect(byContract.get(tokens[1]!.toLowerCase())).toMatchObject({
      symbol: 'SIX',
      decimals: 6,
      balance: '1',
      formatted_balance: '0.000001',
    });
    expect(byContract.get(tokens[2]!.toLowerCase())).toMatchObject({ decimals: 0, balance: '77', formatted_balance: '77' });
  });

  it('follows balances that change without a Transfer event (rebase), at the block it names', async () => {
    const before = await recordIndexedHead(t.database.db, network, c.publicClient);
    const receipt = await send(c.token, 'rebase', [holder, parseUnits('0.000000000000000003', 18)]);
    expect(parseEventLogs({ abi: tokenAbi, logs: receipt.logs, eventName: 'Transfer' })).toHaveLength(0);
    await send(tokens[2]!, 'rebase', [holder, 0n]);

    // Not indexed yet: the answer still names the older block, and matches the chain at that block.
    const old = await get(`/v1/tokens/ethereum/balances/${holder}`);
    expect(old.body.block_number).toBe(Number(before));
    expect(old.body.tokens.find((entry: { contract: string }) => entry.contract === c.token.toLowerCase()).balance).toBe(
      parseUnits('1234.5', 18).toString(),
    );

    const after = await recordIndexedHead(t.database.db, network, c.publicClient);
    const { body } = await get(`/v1/tokens/ethereum/balances/${holder}`);
    expect(body.block_number).toBe(Number(after));
    const expected = await chainBalances([...tokens, emptied], after);
    expect(
      body.tokens.map((entry: { contract: string; balance: string; formatted_balance: string }) => [
        entry.contract,
        entry.balance,
        entry.formatted_balance,
      ]),
    ).toEqual(
      expected.map((entry) => [
        entry.contract,
        entry.balance.toString(),
        formatUnits(entry.balance, entry.contract === tokens[1]!.toLowerCase() ? 6 : 18),
      ]),
    );
    expect(body.total).toBe(2);
    expect(body.tokens.find((entry: { contract: string }) => entry.contract === c.token.toLowerCase()).balance).toBe('3');
  });

  it('pages through the list in a stable order', async () => {
    await send(tokens[2]!, 'mint', [holder, 5n]);
    await recordIndexedHead(t.database.db, network, c.publicClient);
    const all = (await get(`/v1/tokens/ethereum/balances/${holder}`)).body;
    expect(all.total).toBe(3);
    const first = (await get(`/v1/tokens/ethereum/balances/${holder}?limit=2`)).body;
    const second = (await get(`/v1/tokens/ethereum/balances/${holder}?limit=2&page=2`)).body;
    const third = (await get(`/v1/tokens/ethereum/balances/${holder}?limit=2&page=3`)).body;
    expect([first.page, second.page, third.page]).toEqual([1, 2, 3]);
    expect([first.total, second.total, third.total]).toEqual([3, 3, 3]);
    expect([...first.tokens, ...second.tokens]).toEqual(all.tokens);
    expect(third.tokens).toEqual([]);
  });

  it('answers an address the index has never seen with an empty list', async () => {
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    const { status, body } = await get(`/v1/tokens/ethereum/balances/${stranger}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ tokens: [], total: 0, page: 1 });
  });

  it('refuses bad input with a clear error', async () => {
    const cases: [string, number, RegExp][] = [
      ['/v1/tokens/ethereum/balances/0x1234', 400, /'address'.*40 hex digits/],
      ['/v1/tokens/ethereum/balances/vitalik.eth', 400, /'address'/],
      [`/v1/tokens/ethereum/balances/${holder.toLowerCase().replace('0x', '0X')}`, 400, /'address'/],
      ['/v1/tokens/ethereum/balances/0xF39fd6e51aad88F6F4ce6aB8827279cffFb92266', 400, /'address'.*EIP-55/],
      [`/v1/tokens/ethereum/balances/${holder}?limit=101`, 400, /'limit'/],
      [`/v1/tokens/ethereum/balances/${holder}?limit=0`, 400, /'limit'/],
      [`/v1/tokens/ethereum/balances/${holder}?page=0`, 400, /'page'/],
      [`/v1/tokens/ethereum/balances/${holder}?page=x`, 400, /'page'/],
      [`/v1/tokens/polygon/balances/${holder}`, 404, /unknown chain 'polygon'/],
      [`/v1/tokens/ethereum/balances/${holder}?network=mainnet`, 403, /test keys/],
    ];
    for (const [path, status, message] of cases) {
      const answer = await get(path);
      expect([path, answer.status]).toEqual([path, status]);
      expect(answer.body.error.message).toMatch(message);
    }
    expect((await get(`/v1/tokens/ethereum/balances/${holder}`, '')).status).toBe(401);
    const rpcOnly = (await t.createKey({ scopes: ['rpc:read'] })).key;
    const refused = await get(`/v1/tokens/ethereum/balances/${holder}`, rpcOnly);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/data:read/);
  });
});
