// `blockyard backup` of a service with keys, a webhook, a policy, usage, an index and a UserOperation waiting in
// the mempool, then `blockyard restore` into a fresh Postgres on a new data directory: the restored service
// serves the same account, signs with the same webhook secret, bundles the waiting op and indexes on from
// where it was. Runs against the run's Postgres (DATABASE_URL: a fresh
// database on that server; unset: the embedded Postgres of the new data directory, as `blockyard start` uses).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { pino } from 'pino';
import { createPublicClient, type Hex, http, type PublicClient, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkBytes } from '../../src/backup/sealed-stream.ts';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import type { Devnet } from '../../src/chains/devnet.ts';
import { type Database, openDatabase } from '../../src/db/connect.ts';
import { startEmbeddedPostgres } from '../../src/db/embedded/embedded-postgres.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import {
  bundlerClientFor,
  bundlerUrlOf,
  callBundler,
  fund,
  generousFees,
  newSimpleAccount,
  waitForReceipts,
} from '../bundler/support.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { cliEnv, eventually, runCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { type ReceivedRequest, type Receiver, startReceiver, verifySignatures } from '../webhooks/support.ts';

const passphrase = 'correct horse battery staple, restored';
const embeddedTarget = !process.env.DATABASE_URL;

const indexedDevnet = (url: string) => [
  {
    chain: 'ethereum',
    network: 'devnet',
    chain_id: 31337,
    testnet: true,
    dev_methods: true,
    block_time_s: 0.2,
    finality: 'depth',
    finality_depth: 2,
    upstreams: [{ url }],
    indexer: { enabled: true },
    bundler: { enabled: true },
  },
];
const settings = { bundler_keys: devnetExecutorKeys[0] };

/** Row counts of every table but Kysely's: what the backup must carry over, table by table. */
async function tableCounts(db: Database): Promise<Record<string, number>> {
  const { rows } = await sql<{ name: string }>`
    select tablename as name from pg_tables where schemaname = current_schema() and tablename not like 'kysely%'
    order by tablename`.execute(db);
  const counts: Record<string, number> = {};
  for (const { name } of rows) {
    const counted = await sql<{ n: string }>`select count(*)::text as n from ${sql.table(name)}`.execute(db);
    counts[name] = Number(counted.rows[0]!.n);
  }
  return counts;
}

async function indexedHead(db: Database): Promise<number> {
  const { rows } = await sql<{ n: string | null }>`select max(number)::text as n from index_blocks`.execute(db);
  return Number(rows[0]?.n ?? -1);
}

const blockOf = (request: ReceivedRequest) => Number(request.json?.data?.block_number);

async function anvilRpc(anvil: Devnet, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(anvil.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await response.json()) as { result: unknown }).result;
}

describe('blockyard backup and restore', () => {
  let anvil: Devnet;
  let source: TestDatabase;
  let receiver: Receiver;
  let first: TestService | undefined;
  let restored: TestService | undefined;
  let target: TestDatabase | undefined;
  const dirs: string[] = [];
  const tempDir = (name: string) => {
    const dir = mkdtempSync(join(tmpdir(), `blockyard-${name}-`));
    dirs.push(dir);
    return dir;
  };
  let oldDataDir: string;
  let newDataDir: string;
  let workDir: string;
  let backupFile: string;
  // What the first service left, read back after the restore.
  const before = {} as {
    key: string;
    secret: string;
    webhookId: string;
    policy: unknown;
    counts: Record<string, number>;
    head: number;
    usageRequests: number;
    /** A UserOperation that waits in the mempool: the first service has no bundler role. */
    opHash: Hex;
    opRecipient: Hex;
  };

  const cli = (args: string[], env: Record<string, string | undefined> = {}) =>
    runCli(args, { env: cliEnv({ BLOCKYARD_BACKUP_PASSPHRASE: passphrase, ...env }), cwd: workDir, timeoutMs: 45_000 });
  const targetArgs = () =>
    embeddedTarget ? ['--data-dir', newDataDir] : ['--data-dir', newDataDir, '--database-url', target!.url];
  const restore = (file: string, env: Record<string, string | undefined> = {}) =>
    cli(['restore', '--in', file, ...targetArgs()], env);

  /** The target database: the fresh one on DATABASE_URL's server, or the new data directory's embedded server (started here). */
  async function openTarget(): Promise<TestDatabase> {
    if (!embeddedTarget) return target!;
    const embedded = await startEmbeddedPostgres({ dir: join(newDataDir, 'postgres'), logger: pino({ level: 'silent' }) });
    const opened = await openDatabase({ url: embedded.url });
    return {
      db: opened.db,
      url: embedded.url,
      close: async () => {
        await opened.close();
        await embedded.stop();
      },
    };
  }

  beforeAll(async () => {
    oldDataDir = tempDir('old');
    newDataDir = tempDir('new');
    workDir = tempDir('work');
    backupFile = join(workDir, 'blockyard.backup');
    [anvil, source, receiver] = await Promise.all([startTestAnvil(), createTestDatabase(), startReceiver()]);
    if (!embeddedTarget) target = await createTestDatabase({ migrate: false });
    await installErc4337Contracts(anvil.url);
    first = await startTestService({
      sharing: { anvil, database: source },
      dataDir: oldDataDir,
      chainsFor: indexedDevnet,
      roles: 'api,indexer,webhooks',
      settings,
    });
    const { key, accountId } = await first.createKey();
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${first!.url}${path}`, {
        method,
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      // biome-ignore lint/suspicious/noExplicitAny: responses are inspected freely
      return { status: response.status, body: (await response.json()) as any };
    };
    const webhook = await call('POST', '/v1/webhooks', { url: receiver.url, chain: 'ethereum', event_type: 'new_block' });
    expect(webhook.status).toBe(201);
    const policy = await call('POST', '/v1/gas/policies', {
      name: 'Onboarding',
      chain: 'ethereum',
      rules: { max_gas_usd: '12.50', max_ops_per_sender: 3 },
    });
    expect(policy.status).toBe(201);
    for (let i = 0; i < 3; i++) {
      expect((await first.rpc(key, { jsonrpc: '2.0', id: i, method: 'eth_blockNumber', params: [] })).status).toBe(200);
    }
    const publicClient = createPublicClient({ chain: foundry, transport: http(anvil.url) }) as PublicClient;
    const account = await newSimpleAccount(publicClient);
    await fund(anvil.url, [account.address], parseEther('1'));
    const opRecipient = privateKeyToAccount(generatePrivateKey()).address;
    const opHash = await bundlerClientFor(bundlerUrlOf(first.url), key, publicClient).sendUserOperation({
      account,
      calls: [{ to: opRecipient, value: 7n }],
      ...(await generousFees(publicClient)),
    });
    // Enough blocks (each indexed, an event, a delivery) for a backup of several chunks: a change in the
    // last one is found only after the first ones were loaded, which the transaction then takes back.
    await anvilRpc(anvil, 'anvil_mine', ['0x78']);
    const head = Number(BigInt((await anvilRpc(anvil, 'eth_blockNumber')) as string));
    await eventually(async () => ((await indexedHead(source.db)) >= head ? true : undefined), {
      timeoutMs: 20_000,
      what: 'the index at the head',
    });
    await receiver.waitFor((requests) => requests.some((r) => blockOf(r) === head), 20_000, `new_block ${head}`);
    await first.service.usage?.flushNow();
    await first.stop();
    first = undefined;
    const usage = await sql<{
      n: string;
    }>`select coalesce(sum(requests), 0)::text as n from usage_minutes where account_id = ${accountId}`.execute(source.db);
    Object.assign(before, {
      key,
      secret: webhook.body.signing_secret,
      webhookId: webhook.body.id,
      policy: policy.body,
      counts: await tableCounts(source.db),
      head: await indexedHead(source.db),
      usageRequests: Number(usage.rows[0]!.n),
      opHash,
      opRecipient,
    });
    expect(before.head).toBe(head);
    const waiting = await source.db.selectFrom('user_operations').select(['hash', 'status']).execute();
    expect(waiting).toEqual([{ hash: opHash, status: 'pending' }]);
    expect(before.usageRequests).toBeGreaterThanOrEqual(3);
  }, 60_000);

  afterAll(async () => {
    await first?.stop();
    await restored?.stop();
    await Promise.all([anvil?.stop(), source?.close(), receiver?.close(), target?.close()]);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('writes one sealed file with the tables and the key, and prints what it holds', async () => {
    const done = await cli(['backup', '--out', backupFile, '--data-dir', oldDataDir, '--database-url', source.url]);
    expect(done.code, done.stderr).toBe(0);
    const summary = JSON.parse(done.stdout);
    expect(summary).toMatchObject({ file: backupFile, tables: Object.keys(before.counts).length });
    expect(summary.rows).toBe(Object.values(before.counts).reduce((sum, n) => sum + n, 0));
    const bytes = readFileSync(backupFile);
    expect(bytes.subarray(0, 4).toString()).toBe('BYBK');
    expect(bytes.length).toBeGreaterThan(3 * chunkBytes);
    // Sealed: neither the key nor the webhook secret's ciphertext nor the account's name is readable in it.
    const key = readFileSync(join(oldDataDir, 'encryption-key'), 'utf8').trim();
    expect(bytes.includes(Buffer.from(key))).toBe(false);
    expect(bytes.includes(Buffer.from(before.webhookId))).toBe(false);
    expect(done.stdout + done.stderr).not.toContain(passphrase);
  });

  it('refuses a wrong passphrase, a changed file and a truncated one, leaving the target empty and no key', async () => {
    const bytes = readFileSync(backupFile);
    // A byte near the end: the chunks before it authenticate and are loaded before the change is found.
    const changed = Buffer.from(bytes);
    changed[changed.length - 40]! ^= 0x01;
    writeFileSync(join(workDir, 'changed.backup'), changed);
    writeFileSync(join(workDir, 'cut.backup'), bytes.subarray(0, bytes.length - 1000));
    // The first two are refused before any database is started: they run beside the third.
    const [wrong, missing, refusedChange] = await Promise.all([
      restore(backupFile, { BLOCKYARD_BACKUP_PASSPHRASE: 'not the passphrase' }),
      restore(backupFile, { BLOCKYARD_BACKUP_PASSPHRASE: '' }),
      restore(join(workDir, 'changed.backup')),
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('the passphrase does not open this backup');
    expect(wrong.stderr).toContain('(backup_wrong_passphrase)');
    expect(wrong.stderr).not.toContain('not the passphrase');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('set BLOCKYARD_BACKUP_PASSPHRASE');
    expect(refusedChange.code).toBe(1);
    expect(refusedChange.stderr).toMatch(/damaged or was changed: chunk \d+ does not authenticate/);

    const refusedCut = await restore(join(workDir, 'cut.backup'));
    expect(refusedCut.code).toBe(1);
    expect(refusedCut.stderr).toContain('the backup is truncated');
    expect(refusedCut.stderr).toContain('(backup_truncated)');

    const check = await openTarget();
    try {
      const tables = await sql<{
        n: string;
      }>`select count(*)::text as n from pg_tables where schemaname = current_schema()`.execute(check.db);
      expect(Number(tables.rows[0]!.n)).toBe(0);
    } finally {
      if (embeddedTarget) await check.close();
    }
    expect(() => readFileSync(join(newDataDir, 'encryption-key'))).toThrow(/ENOENT/);
  });

  it('restores into a fresh Postgres on a new data directory: keys, secrets, policies, usage, the mempool and the index carry on', async () => {
    const done = await restore(backupFile);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({
      key: join(newDataDir, 'encryption-key'),
      created_at: expect.any(String),
      tables: Object.keys(before.counts).length,
      rows: Object.values(before.counts).reduce((sum, n) => sum + n, 0),
    });
    expect(readFileSync(join(newDataDir, 'encryption-key'), 'utf8')).toBe(
      readFileSync(join(oldDataDir, 'encryption-key'), 'utf8'),
    );

    // A second restore over it is refused: the database now has rows.
    const again = await restore(backupFile);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('the target database already has rows');

    target = await openTarget();
    expect(await tableCounts(target.db)).toEqual(before.counts);
    expect(await indexedHead(target.db)).toBe(before.head);

    const deliveredBefore = receiver.requests.length;
    restored = await startTestService({
      sharing: { anvil, database: target },
      dataDir: newDataDir,
      chainsFor: indexedDevnet,
      settings,
    });
    const call = async (method: string, path: string) => {
      const response = await fetch(`${restored!.url}${path}`, { method, headers: { 'x-api-key': before.key } });
      // biome-ignore lint/suspicious/noExplicitAny: responses are inspected freely
      return { status: response.status, body: (await response.json()) as any };
    };
    // The old key authenticates; the policy is as it was; the usage counted before the backup is there.
    expect((await restored.rpc(before.key, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })).status).toBe(200);
    const policy = await call('GET', `/v1/gas/policies/${(before.policy as { id: string }).id}`);
    expect(policy).toEqual({ status: 200, body: before.policy });
    const usage = await call('GET', '/v1/usage?granularity=day&group_by=method');
    expect(usage.status).toBe(200);
    expect(usage.body.totals.requests).toBeGreaterThanOrEqual(before.usageRequests);

    // The op that waited in the mempool is bundled by the restored service (it has the bundler role).
    const bundlerUrl = bundlerUrlOf(restored.url);
    const receipts = await waitForReceipts(bundlerUrl, before.key, [before.opHash], 30_000);
    expect(receipts.get(before.opHash)).toMatchObject({ userOpHash: before.opHash, success: true, nonce: '0x0' });
    expect(await anvilRpc(anvil, 'eth_getBalance', [before.opRecipient, 'latest'])).toBe('0x7');
    const status = await callBundler(bundlerUrl, before.key, 'pimlico_getUserOperationStatus', [before.opHash]);
    expect(status.result).toMatchObject({ status: 'included' });

    // The index goes on from the block it had (no block is indexed, nor delivered, twice), and the
    // webhook's old secret still signs: the receiver verifies the new deliveries with it.
    await anvilRpc(anvil, 'anvil_mine', ['0x2']);
    const head = Number(BigInt((await anvilRpc(anvil, 'eth_blockNumber')) as string));
    await receiver.waitFor(
      (requests) => requests.some((r) => blockOf(r) === head),
      20_000,
      `new_block ${head} after the restore`,
    );
    const after = receiver.requests.slice(deliveredBefore);
    const deliveredEarlier = new Set(receiver.requests.slice(0, deliveredBefore).map(blockOf));
    expect(after.map(blockOf).filter((block) => deliveredEarlier.has(block))).toEqual([]);
    const blocksSince = Array.from({ length: head - before.head }, (_, i) => before.head + 1 + i);
    expect(after.map(blockOf)).toEqual(expect.arrayContaining(blocksSince));
    for (const request of after) verifySignatures(request, before.secret);
    expect(after.every((request) => request.json.webhook_id === before.webhookId)).toBe(true);
  }, 90_000);
});
