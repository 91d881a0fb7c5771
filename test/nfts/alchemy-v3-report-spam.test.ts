import { Alchemy } from 'alchemy-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restrictKey } from '../support/key-restrictions.ts';
import { startTestService, type TestService } from '../support/service.ts';

const reported = '0x495f947276749ce646f68ac8c248420045cb7b5e';
const other = '0x00000000000000000000000000000000000000aa';

/**
 * Alchemy's reportSpam under the JSON-RPC URL form: alchemy-sdk fires it and forgets it (an error would
 * be an unhandled rejection in the caller's process), so it must answer; each account's last report
 * is kept for the operator and changes no verdict.
 */
describe('reportSpam', () => {
  let t: TestService;
  let base: string;
  let otherBase: string;
  beforeAll(async () => {
    t = await startTestService();
    base = `${t.url}/v1/rpc/ethereum/devnet/${(await t.createKey()).key}`;
    otherBase = `${t.url}/v1/rpc/ethereum/devnet/${(await t.createKey()).key}`;
  });
  afterAll(() => t?.stop());

  const report = async (url: string, query: string) => {
    const response = await fetch(`${url}/reportSpam?${query}`, { signal: AbortSignal.timeout(10_000) });
    // biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
    const body: any = await response.json();
    return { status: response.status, type: response.headers.get('content-type'), body };
  };
  const reports = async () => (await t.admin('GET', '/admin/spam/ethereum/devnet/reports')).body as { reports: unknown[] };

  it("answers Alchemy's confirmation and keeps each account's last word for the operator", async () => {
    const first = await report(base, `address=${reported}&isSpam=true`);
    expect(first).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      body: 'Address was successfully reported as spam',
    });
    // alchemy-sdk's own call (it sends contractAddress, no isSpam) through the URL it was given.
    await new Alchemy({ url: otherBase, maxRetries: 0 }).nft.reportSpam(reported.toUpperCase().replace('0X', '0x'));
    await expect
      .poll(async () => (await reports()).reports, { timeout: 10_000 })
      .toEqual([{ contract: reported, spam_reports: 2, not_spam_reports: 0, last_reported_at: expect.any(String) }]);
    // The same account changing its mind counts once, as its last report.
    expect((await report(base, `address=${reported}&isSpam=false`)).body).toBe('Address was successfully reported as not spam');
    await report(base, `contractAddress=${other}`);
    expect((await reports()).reports).toEqual([
      { contract: other, spam_reports: 1, not_spam_reports: 0, last_reported_at: expect.any(String) },
      { contract: reported, spam_reports: 1, not_spam_reports: 1, last_reported_at: expect.any(String) },
    ]);
    // No verdict changed: the contract is on no list.
    const lists = (await t.admin('GET', '/admin/spam/ethereum/devnet')).body as { entries: unknown[] };
    expect(lists.entries).toEqual([]);
  });

  it('what it cannot take is a 400 naming the parameter; a key limited to contracts reports only those', async () => {
    const cases: [string, RegExp][] = [
      ['', /'address': is required/],
      ['address=0x12', /'address'/],
      [`address=${reported}&isSpam=yes`, /'isSpam': 'yes' is not true or false/],
      [`address=${reported}&contractAddress=${other}`, /'contractAddress': names another contract than address/],
    ];
    for (const [query, message] of cases) {
      const answer = await report(base, query);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.message, query).toMatch(message);
    }
    const limited = await t.createKey();
    await restrictKey(t, limited.keyId, { contracts: [reported] });
    const limitedBase = `${t.url}/v1/rpc/ethereum/devnet/${limited.key}`;
    expect((await report(limitedBase, `address=${other}`)).status).toBe(403);
    expect((await report(limitedBase, `contractAddress=${other}`)).status).toBe(403);
    expect((await report(limitedBase, `address=${reported}`)).status).toBe(200);
  });
});
