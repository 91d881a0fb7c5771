import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * One rule per kind of input, wherever it is taken (what a newcomer trying ~350 bad inputs found to differ
 * from route to route): numbers, limits, addresses, chains, the account plan.
 */

// A real address (anvil's account 1), its EIP-55 form, and that form with one letter's case flipped.
const lower = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const checksummed = getAddress(lower);
const badChecksum = checksummed.replace('C5', 'c5');

describe('input rules that hold on every route', () => {
  let t: TestService;
  let v1: Record<string, string>;

  // biome-ignore lint/suspicious/noExplicitAny: test responses are inspected freely
  async function send(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const headers = path.startsWith('/admin') ? { authorization: `Bearer ${t.adminToken}` } : v1;
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, body: await response.json() };
  }
  const refusal = (answer: { status: number; body: { error?: { code: string; message: string } } }) => [
    answer.status,
    answer.body.error?.code,
    answer.body.error?.message,
  ];

  beforeAll(async () => {
    t = await startTestService();
    await installErc4337Contracts(t.anvil.url);
    v1 = { 'x-api-key': (await t.createKey()).key };
  });
  afterAll(() => t?.stop());

  it('account limits are integers from 0 to a billion: 1e300 and 2e9 are refused naming the field', async () => {
    const huge = await send('POST', '/admin/accounts', '{"name":"a","limits":{"rps":1e300}}');
    expect(refusal(huge)).toEqual([400, 'invalid_request', expect.stringContaining("'limits.rps'")]);
    const large = await send('POST', '/admin/accounts', { name: 'a', limits: { cups: 2_000_000_000 } });
    expect(refusal(large)).toEqual([400, 'invalid_request', "invalid body 'limits.cups': must be at most 1000000000"]);
    const fraction = await send('POST', '/admin/accounts', { name: 'a', limits: { rpd: 1.5 } });
    expect(refusal(fraction)).toEqual([400, 'invalid_request', "invalid body 'limits.rpd': must be a whole number or null"]);
    const account = await send('POST', '/admin/accounts', { name: 'a', plan: 'growth', limits: { rps: 1_000_000_000 } });
    expect(account.status).toBe(201);
    const patched = await send('PATCH', `/admin/accounts/${account.body.id}`, '{"limits":{"rpd":1e300}}');
    expect(refusal(patched)).toEqual([400, 'invalid_request', expect.stringContaining("'limits.rpd'")]);
  });

  it('a JSON number past 2^53 - 1 is refused naming the field; a uint256 field takes it as a string', async () => {
    const owner = lower;
    const rounded = await send('POST', '/v1/wallets/create', `{"owner":"${owner}","chain":"ethereum","salt":9007199254740993}`);
    expect(refusal(rounded)).toEqual([
      400,
      'invalid_request',
      "invalid body 'salt': is a number past 9007199254740991, which JSON numbers cannot carry exactly; send a large value as a decimal string where the field takes one",
    ]);
    const exact = await send('POST', '/v1/wallets/create', { owner, chain: 'ethereum', salt: '9007199254740993' });
    expect(exact.status).toBe(201);
    expect(exact.body.salt).toBe('9007199254740993');
    // Anywhere in any body, not only where a uint256 goes.
    const nested = await send(
      'POST',
      '/v1/gas/policies',
      '{"name":"p","chain":"ethereum","rules":{"max_ops":-9007199254740993}}',
    );
    expect(refusal(nested)).toEqual([400, 'invalid_request', expect.stringContaining("'rules.max_ops': is a number past")]);
  });

  it('an address: lower case, or mixed case with a valid EIP-55 checksum, on wallets, tokens, NFTs, webhooks alike', async () => {
    const message = (name: string) =>
      `invalid parameter '${name}': '${badChecksum}' fails its EIP-55 checksum (send it in lower case to skip the check)`;
    const refusals = [
      [await send('POST', '/v1/wallets/create', { owner: badChecksum, chain: 'ethereum' }), 'owner'],
      [await send('GET', `/v1/wallets/${badChecksum}`), 'address'],
      [await send('GET', `/v1/tokens/ethereum/balances/${badChecksum}`), 'address'],
      [await send('GET', `/v1/nfts/ethereum/owned/${badChecksum}`), 'address'],
      [
        await send('POST', '/v1/webhooks', {
          url: 'http://127.0.0.1:9/hook',
          chain: 'ethereum',
          event_type: 'address_activity',
          config: { addresses: [lower, badChecksum] },
        }),
        'config.addresses[1]',
      ],
    ] as const;
    for (const [answer, name] of refusals) expect(refusal(answer)).toEqual([400, 'invalid_request', message(name)]);

    for (const owner of [lower, checksummed, checksummed.toUpperCase().replace('0X', '0x')]) {
      expect((await send('POST', '/v1/wallets/create', { owner, chain: 'ethereum', salt: '7' })).status).toBe(201);
    }
  });

  it('an unknown chain: 404 in a path, 400 naming the field in a body', async () => {
    const inPath = await send('GET', `/v1/tokens/bitcoin/balances/${lower}`);
    expect(inPath.status).toBe(404);
    const bodies: [string, Record<string, unknown>][] = [
      ['/v1/webhooks', { url: 'http://127.0.0.1:9/hook', chain: 'bitcoin', event_type: 'new_block' }],
      ['/v1/wallets/create', { owner: lower, chain: 'bitcoin' }],
      ['/v1/gas/policies', { name: 'p', chain: 'bitcoin', rules: {} }],
    ];
    for (const [path, body] of bodies) {
      const answer = await send('POST', path, body);
      expect(refusal(answer), path).toEqual([
        400,
        'invalid_request',
        "invalid parameter 'chain': unknown chain 'bitcoin' (this service serves ethereum)",
      ]);
      const network = await send('POST', path, { ...body, chain: 'ethereum', network: 'nowhere' });
      expect(refusal(network), path).toEqual([
        400,
        'invalid_request',
        "invalid parameter 'network': chain 'ethereum' has no network 'nowhere' (this service serves devnet, mainnet)",
      ]);
    }
  });

  it('an account without a plan is on the free plan, as with the CLI', async () => {
    const account = await send('POST', '/admin/accounts', { name: 'no plan given' });
    expect(account.status).toBe(201);
    expect(account.body.plan).toBe('free');
    expect(account.body.limits).toMatchObject({ rps: 10, rpd: 100_000, cups: 200 });
  });
});
