// Matching with long address lists: 50 address_activity webhooks of 100,000 addresses each (5 million
// rows of webhook_addresses) against blocks of 200 transactions, 20 of them to watched addresses.
// Each block is one matching round (src/webhooks/matcher.ts, as the webhooks role runs it: the
// webhook cache, the one indexed lookup of the round's addresses, the outbox writes); printed: time
// per block and the process's RSS, against a baseline of the same 50 webhooks with one inline address
// each (the in-memory Set path) in the same run.
// Run: npm run bench:webhook-addresses   (BENCH_DATABASE_URL: an existing Postgres; else an embedded
// one in a temp directory; BENCH_ADDRESS_BLOCKS, default 30)
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { pino } from 'pino';
import type { Database } from '../src/db/connect.ts';
import { openDatabase } from '../src/db/connect.ts';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../src/db/embedded/embedded-postgres.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { matchRound } from '../src/webhooks/matcher.ts';
import { createWebhookCache } from '../src/webhooks/webhook-cache.ts';
import { readRssMiB } from './support/rss.ts';

const webhooks = 50;
const addressesEach = 100_000;
const transactionsPerBlock = 200;
const hitsPerBlock = 20;
const blocks = Number(process.env.BENCH_ADDRESS_BLOCKS ?? 30);
const network = 'ethereum/devnet';
const facts = { chain: 'ethereum', network: 'devnet', nativeSymbol: 'ETH' };
const log = (line: string) => process.stderr.write(`[bench:webhook-addresses] ${line}\n`);
const logger = pino({ level: 'warn' });

/** The i-th watched address of webhook w (the same formula as the SQL that makes them). */
const watched = (w: number, i: number) => `0x${(w * 1_000_000 + i).toString(16).padStart(40, '0')}`;
const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
};
const stranger = () => `0x${randomBytes(20).toString('hex')}`;

async function seedWebhooks(db: Database, tabled: boolean): Promise<void> {
  await sql`delete from webhooks`.execute(db);
  await sql`delete from webhook_matcher_cursor`.execute(db);
  await sql`delete from chain_events`.execute(db);
  for (let w = 1; w <= webhooks; w++) {
    await db
      .insertInto('webhooks')
      .values({
        id: `wh_bench_${w}`,
        account_id: 'acc_bench',
        url: 'http://127.0.0.1:9/hooks',
        chain: 'ethereum',
        network,
        event_type: 'address_activity',
        config: JSON.stringify(tabled ? {} : { addresses: [watched(w, 0)] }),
        payload_format: 'snake_case',
        status: 'paused', // recorded as paused deliveries: nothing is sent
        secret_ciphertext: 'x',
        start_seq: '0',
        address_filter: tabled,
        address_count: tabled ? addressesEach : 0,
      })
      .execute();
  }
  if (!tabled) return;
  const started = Date.now();
  await sql`
    insert into webhook_addresses (webhook_id, address)
    select 'wh_bench_' || w, '0x' || lpad(to_hex(w * 1000000 + i), 40, '0')
    from generate_series(1, ${webhooks}::int) w, generate_series(0, ${addressesEach - 1}::int) i`.execute(db);
  await sql`analyze webhook_addresses`.execute(db);
  log(`${webhooks * addressesEach} addresses written in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** One block of transactions: `hitsPerBlock` to watched addresses (index 0, in the inline list too), the rest to strangers. */
async function writeBlock(db: Database, number: number): Promise<void> {
  const rows = Array.from({ length: transactionsPerBlock }, (_, index) => {
    const to = index < hitsPerBlock ? watched(1 + (index % webhooks), 0) : stranger();
    return {
      network,
      type: 'transaction',
      block_number: number,
      block_hash: `0x${number.toString(16).padStart(64, '0')}`,
      data: JSON.stringify({
        hash: `0x${randomBytes(32).toString('hex')}`,
        index,
        from: stranger(),
        to,
        value: '1',
        status: 'success',
        contract_created: null,
        selector: null,
      }),
    };
  });
  await db.insertInto('chain_events').values(rows).execute();
}

async function measure(db: Database, tabled: boolean): Promise<{ times: number[]; rss: number[]; queued: number }> {
  await seedWebhooks(db, tabled);
  const cache = createWebhookCache(db, (name) => (name === network ? facts : undefined));
  const enricher = { tokens: async () => new Map(), nfts: async () => new Map() };
  await matchRound({ db, webhooks: cache.current, enricher, logger }); // sets the cursor
  await cache.current(); // and fills the cache, as a running matcher has it
  const times: number[] = [];
  const rss: number[] = [];
  let queued = 0;
  for (let block = 1; block <= blocks; block++) {
    await writeBlock(db, block);
    const started = performance.now();
    const round = await matchRound({ db, webhooks: cache.current, enricher, logger });
    times.push(performance.now() - started);
    rss.push(readRssMiB(process.pid));
    queued += round.queued;
    if (round.events !== transactionsPerBlock) throw new Error(`round read ${round.events} events`);
  }
  return { times, rss, queued };
}

let embedded: EmbeddedPostgres | undefined;
const dir = mkdtempSync(join(tmpdir(), 'blockyard-bench-addresses-'));
try {
  let url = process.env.BENCH_DATABASE_URL;
  if (!url) {
    embedded = await startEmbeddedPostgres({ dir, logger, settings: { fsync: 'off', synchronous_commit: 'off' } });
    url = embedded.url;
  }
  const database = await openDatabase({ url });
  const db = database.db;
  await migrateToLatest(db);
  await sql`insert into accounts (id, name, plan) values ('acc_bench', 'bench', 'enterprise') on conflict do nothing`.execute(db);
  const rssStart = readRssMiB(process.pid);
  const baseline = await measure(db, false);
  const tabled = await measure(db, true);
  const row = (name: string, run: { times: number[]; rss: number[]; queued: number }) =>
    `| ${name} | ${percentile(run.times, 50).toFixed(1)} | ${percentile(run.times, 95).toFixed(1)} | ${Math.max(...run.rss).toFixed(0)} | ${run.queued} |`;
  console.log(
    `${blocks} blocks of ${transactionsPerBlock} transactions (${hitsPerBlock} to watched addresses), ${webhooks} webhooks`,
  );
  console.log('| webhooks | ms per block p50 | p95 | RSS MiB (max) | deliveries recorded |');
  console.log('|---|---|---|---|---|');
  console.log(row(`${webhooks} x 1 address (inline Set)`, baseline));
  console.log(row(`${webhooks} x ${addressesEach.toLocaleString('en')} addresses (table)`, tabled));
  console.log(
    `RSS at start: ${rssStart.toFixed(0)} MiB; ratio of p50 (table / inline): ${(percentile(tabled.times, 50) / percentile(baseline.times, 50)).toFixed(2)}`,
  );
  await sql`delete from webhooks where account_id = 'acc_bench'`.execute(db);
  await database.close();
} finally {
  await embedded?.stop();
  rmSync(dir, { recursive: true, force: true });
}
