import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { type RunningService, startService } from '../../src/service/start-service.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/** The curl lines of the `--demo` section of docs/getting-started.md (the README links it). */
function demoCalls(): { line: string; path: string }[] {
  const page = readFileSync(new URL('../../docs/getting-started.md', import.meta.url), 'utf8');
  const start = page.indexOf('## Sample data (`--demo`)');
  expect(start, 'the --demo section of docs/getting-started.md').toBeGreaterThan(-1);
  const section = page.slice(start);
  const block = section.slice(section.indexOf('```sh\ncurl'), section.indexOf('```\n', section.indexOf('```sh\ncurl') + 5));
  return block
    .split('\n')
    .filter((line) => line.startsWith('curl '))
    .map((line) => {
      const url = new URL(line.match(/http:\/\/127\.0\.0\.1:8080[^\s"]+/)![0]);
      return { line, path: `${url.pathname}${url.search}` };
    });
}

/** Each curl example of docs/tokens.md and the answer the page shows under it. */
function tokenPageExamples(): { line: string; path: string; shown: Record<string, unknown> }[] {
  const page = readFileSync(new URL('../../docs/tokens.md', import.meta.url), 'utf8');
  const examples = [...page.matchAll(/```sh\n(curl [^\n]*)\n```\n\n```json\n([\s\S]*?)\n```/g)];
  return examples.map(([, line, json]) => {
    const url = new URL(line!.match(/http:\/\/127\.0\.0\.1:8080[^\s"]+/)![0]);
    return { line: line!, path: `${url.pathname}${url.search}`, shown: JSON.parse(json!) as Record<string, unknown> };
  });
}

describe('the --demo examples of docs/getting-started.md', () => {
  let dataDir: string;
  let database: TestDatabase;
  let service: RunningService;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'blockyard-demo-'));
    database = await createTestDatabase();
    const config = loadConfig({
      env: { BLOCKYARD_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', BLOCKYARD_DEMO: 'true', BLOCKYARD_BLOCK_TIME: '0.5' },
      cwd: dataDir,
    });
    service = await startService(config, { database });
    await service.indexers[0]!.waitFor(undefined, 60_000);
  }, 180_000);

  /** The first call of the page (the dev account's token balances) on the running service. */
  async function demoBalances(): Promise<{ tokens: { symbol: string; usd_value: string | null }[] }> {
    const response = await fetch(`${service.url}${demoCalls()[0]!.path}`, {
      headers: { 'x-api-key': service.devKey!.key },
      signal: AbortSignal.timeout(20_000),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { tokens: { symbol: string; usd_value: string | null }[] };
  }

  afterAll(async () => {
    await service?.stop('test finished');
    await database?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists nine calls, and each answers 200 with the demo data', async () => {
    const calls = demoCalls();
    expect(calls).toHaveLength(9);
    const answers: Record<string, Record<string, unknown>> = {};
    for (const { line, path } of calls) {
      const response = await fetch(`${service.url}${path}`, {
        headers: { 'x-api-key': service.devKey!.key },
        signal: AbortSignal.timeout(20_000),
      });
      expect(response.status, line).toBe(200);
      answers[path] = (await response.json()) as Record<string, unknown>;
    }
    const [balances, metadata, owned, ape, collection, item, transfers, airdropped, withoutSpam] = calls.map(
      ({ path }) => answers[path]!,
    );
    expect(balances!.tokens).toEqual([
      expect.objectContaining({
        contract: '0x2c557e17c11a17fa0862602f544885f183e680fb',
        symbol: 'BDUSD',
        formatted_balance: '996707.75',
        usd_value: expect.stringMatching(/^996707\.75/),
      }),
    ]);
    expect(metadata).toMatchObject({ symbol: 'BDUSD', decimals: 6, price_usd: expect.stringMatching(/^1(\.0+)?$/) });
    expect((owned!.nfts as unknown[]).length).toBe(6);
    expect(ape).toMatchObject({ token_id: '1', name: 'Blockyard Demo Ape #1', standard: 'ERC721' });
    expect((ape!.traits as unknown[]).length).toBeGreaterThan(0);
    expect(collection).toMatchObject({ name: 'Blockyard Demo Apes', standard: 'ERC721', total_supply: 6 });
    expect(item).toMatchObject({ token_id: '2', standard: 'ERC1155', name: expect.stringContaining('Blockyard Demo Item') });
    const listed = transfers!.transfers as { category: string; to: string; from: string }[];
    expect(listed).toHaveLength(5);
    const dev = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
    for (const transfer of listed) expect([transfer.from.toLowerCase(), transfer.to.toLowerCase()]).toContain(dev);
    expect(transfers!.page_key).toEqual(expect.any(String));
    // Account 5 got the spam-shaped airdrops only: the NFT is flagged, the token is filtered out.
    expect(airdropped!.nfts).toEqual([
      expect.objectContaining({ contract: '0xb1b2c20077b0eb5e82eac76e76ebd6627f81669b', is_spam: true, is_airdrop: true }),
    ]);
    expect(withoutSpam!.tokens).toEqual([]);
  }, 120_000);

  it('answers the examples of docs/tokens.md as the page shows them (but the block number)', async () => {
    const examples = tokenPageExamples();
    expect(examples.map(({ path }) => path.split('/')[4])).toEqual(['balances', 'metadata']);
    for (const { line, path, shown } of examples) {
      const response = await fetch(`${service.url}${path}`, {
        headers: { 'x-api-key': service.devKey!.key },
        signal: AbortSignal.timeout(20_000),
      });
      expect(response.status, line).toBe(200);
      const answer = (await response.json()) as Record<string, unknown>;
      expect(answer, line).toEqual({ ...shown, block_number: expect.any(Number) });
    }
  }, 60_000);

  it('a plain start after the demo run shows the demo token with its price: the price comes with the data', async () => {
    await service.stop('restarted without --demo');
    const config = loadConfig({
      env: { BLOCKYARD_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', BLOCKYARD_BLOCK_TIME: '0.5' },
      cwd: dataDir,
    });
    expect(config.demo).toBe(false);
    service = await startService(config, { database });
    await service.indexers[0]!.waitFor(undefined, 60_000);
    const { tokens } = await demoBalances();
    expect(tokens).toEqual([expect.objectContaining({ symbol: 'BDUSD', usd_value: expect.stringMatching(/^996707\.75/) })]);
  }, 180_000);
});
