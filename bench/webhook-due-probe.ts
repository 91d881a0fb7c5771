// The delivery workers' probe for webhooks with something to send (findDueWebhooks, run on every
// 250 ms tick and every new delivery), when webhooks hold many deliveries still waiting for
// confirmations (an exchange's deposit watcher on a busy token): 10 active webhooks with 12,000
// waiting each. Against, in the same run: the same webhooks with nothing pending (the floor), and the
// probe as it was before 2a770ee (each waiting delivery's block checked against the chain one by one).
// Run: npm run bench:webhook-probe   (BENCH_DATABASE_URL: an existing Postgres; else an embedded one)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, sql } from 'kysely';
import { pino } from 'pino';
import { openDatabase } from '../src/db/connect.ts';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../src/db/embedded/embedded-postgres.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import type { Tables } from '../src/db/tables.ts';
import { findDueWebhooks } from '../src/webhooks/claim-deliveries.ts';

const webhooks = 10;
const waitingEach = 12_000;
const probes = 40;
const network = 'ethereum/devnet';
const head = 1_000;
const log = (line: string) => process.stderr.write(`[bench:webhook-probe] ${line}\n`);

/** The probe's text before 2a770ee: every due delivery's readiness checked against the chain, one by one. */
const probeBefore = (db: Kysely<Tables>) =>
  sql`
  select w.id from webhooks w
  where w.status = 'active' and exists (
    select 1 from webhook_deliveries d
    where d.webhook_id = w.id and d.status = 'pending' and d.next_attempt_at <= now()
      and (d.ready_block is null
        or (d.ready_block <= (case when d.ready_final
              then (select p.final_block from index_progress p where p.network = d.network)
              else (select max(b.number) from index_blocks b where b.network = d.network) end)
          and not exists (select 1 from webhook_events de join chain_events r on r.removes_seq = de.chain_seq
                          where de.id = d.event_id))))
  order by random() limit 16`.execute(db);

async function time(run: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  for (let index = 0; index < probes; index++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(probes / 2)]!, p95: times[Math.ceil(probes * 0.95) - 1]! };
}

let embedded: EmbeddedPostgres | undefined;
const dir = mkdtempSync(join(tmpdir(), 'blockyard-bench-probe-'));
try {
  let url = process.env.BENCH_DATABASE_URL;
  if (!url) {
    embedded = await startEmbeddedPostgres({ dir, logger: pino({ level: 'warn' }) });
    url = embedded.url;
  }
  const database = await openDatabase({ url });
  const db = database.db;
  await migrateToLatest(db);
  await sql`insert into accounts (id, name, plan) values ('acc_probe', 'probe', 'enterprise') on conflict do nothing`.execute(db);
  await sql`insert into webhooks (id, account_id, url, chain, network, event_type, config, payload_format, status,
              secret_ciphertext, start_seq)
            select 'wh_probe_' || n, 'acc_probe', 'http://127.0.0.1:9/', 'ethereum', ${network}, 'token_transfer', '{}',
                   'snake_case', 'active', 'x', 0
            from generate_series(1, ${webhooks}::int) n`.execute(db);
  await sql`insert into index_blocks (network, number, hash, parent_hash, timestamp, gas_used, tx_count)
            select ${network}, n, 'h' || n, 'h' || (n - 1), now(), 0, 0 from generate_series(${head - 127}::int, ${head}::int) n
            on conflict do nothing`.execute(db);
  const empty = await time(() => findDueWebhooks(db, 16));

  const started = Date.now();
  await sql`insert into webhook_events (id, webhook_id, source_key, event_type, block_number, data)
            select 'evt_probe_' || w || '_' || n, 'wh_probe_' || w, 'probe:' || n, 'token_transfer', ${head} + 1 + n / 1000, '{}'
            from generate_series(1, ${webhooks}::int) w, generate_series(1, ${waitingEach}::int) n`.execute(db);
  await sql`insert into webhook_deliveries (id, webhook_id, account_id, event_id, network, kind, status, ready_block)
            select 'dlv_probe_' || w || '_' || n, 'wh_probe_' || w, 'acc_probe', 'evt_probe_' || w || '_' || n, ${network},
                   'event', 'pending', ${head} + 12 + n / 1000
            from generate_series(1, ${webhooks}::int) w, generate_series(1, ${waitingEach}::int) n`.execute(db);
  await sql`analyze`.execute(db);
  log(`${webhooks * waitingEach} waiting deliveries written in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const now = await time(async () => {
    if ((await findDueWebhooks(db, 16)).length > 0) throw new Error('a webhook of waiting deliveries was found due');
  });
  const before = await time(() => probeBefore(db));

  console.log(`${webhooks} active webhooks; ${probes} probes each; ${databaseLabel(process.env.BENCH_DATABASE_URL)}`);
  console.log('| probe | pending deliveries | ms p50 | ms p95 | x floor (p50) |');
  console.log('|---|---|---|---|---|');
  const row = (name: string, pending: number, r: { p50: number; p95: number }) =>
    console.log(
      `| ${name} | ${pending.toLocaleString('en')} | ${r.p50.toFixed(2)} | ${r.p95.toFixed(2)} | ${(r.p50 / empty.p50).toFixed(1)} |`,
    );
  row('nothing pending (the floor)', 0, empty);
  row('waiting for confirmations: the probe now', webhooks * waitingEach, now);
  row('waiting for confirmations: the probe before 2a770ee', webhooks * waitingEach, before);
  await sql`delete from webhooks where account_id = 'acc_probe'`.execute(db);
  await database.close();
} finally {
  await embedded?.stop();
  rmSync(dir, { recursive: true, force: true });
}

function databaseLabel(url: string | undefined): string {
  return url ? `Postgres at ${new URL(url).host}` : 'embedded Postgres';
}
