// What bench/webhooks.ts reads from the service's database: how many deliveries are queued or done,
// the delivery log's rows, and the timestamps each step leaves behind (to say where the time goes).
import { readFileSync } from 'node:fs';
import pg from 'pg';

/**
 * The embedded Postgres's URL as the banner prints it (`DATABASE_URL=postgres://user:$(cat <file>)@host/db`),
 * with the password read from that file.
 */
export function embeddedDatabaseUrl(logFile: string): string {
  const text = readFileSync(logFile, 'utf8');
  const match = /DATABASE_URL=postgres:\/\/([^:\s]+):\$\(cat ([^)\s]+)\)@(\S+)/.exec(text);
  if (!match) throw new Error(`the service printed no embedded DATABASE_URL (log: ${logFile})`);
  const password = readFileSync(match[2]!, 'utf8').trim();
  return `postgres://${encodeURIComponent(match[1]!)}:${encodeURIComponent(password)}@${match[3]}`;
}

export interface BenchDatabase {
  /** Deliveries of these webhooks by status. */
  deliveries(webhookIds: readonly string[]): Promise<Record<string, number>>;
  /** Rows of the delivery log (webhook_attempts) of these webhooks, and how many answered 2xx. */
  attempts(webhookIds: readonly string[]): Promise<{ rows: number; ok: number }>;
  /** Per new_block delivery: when the indexer's write, the matcher and the send started (wall ms). */
  latencySteps(webhookId: string): Promise<LatencySteps[]>;
  /** One row per delivery transaction (a webhook's claimed batch), in start order. */
  batches(webhookIds: readonly string[]): Promise<DeliveryBatch[]>;
  close(): Promise<void>;
}

export interface LatencySteps {
  block: number;
  /** chain_events.created_at: the start of the indexer's transaction that wrote the block. */
  indexedMs: number;
  /** webhook_events.created_at: the start of the matcher's round that queued it. */
  matchedMs: number;
  /** webhook_attempts.attempted_at: just before the POST. */
  sentMs: number;
}

export interface DeliveryBatch {
  webhookId: string;
  /** webhook_deliveries.updated_at: the delivery transaction's start (now()). */
  startedMs: number;
  /** The first POST's start, and the last answer (its start plus its latency). */
  firstSendMs: number;
  lastAnswerMs: number;
  deliveries: number;
  /** The sum of the batch's POST latencies (ms, whole numbers as logged). */
  sendMsSum: number;
  /** The same webhook's next transaction, if any. */
  nextStartedMs: number | null;
}

const epochMs = (column: string) => `extract(epoch from ${column}) * 1000`;

export async function openBenchDatabase(url: string): Promise<BenchDatabase> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000, query_timeout: 60_000 });
  await client.connect();
  return {
    async deliveries(webhookIds) {
      const { rows } = await client.query<{ status: string; count: string }>(
        'select status, count(*) as count from webhook_deliveries where webhook_id = any($1) group by status',
        [webhookIds],
      );
      return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
    },
    async attempts(webhookIds) {
      const { rows } = await client.query<{ rows: string; ok: string }>(
        `select count(*) as rows, count(*) filter (where response_status between 200 and 299) as ok
         from webhook_attempts where webhook_id = any($1)`,
        [webhookIds],
      );
      return { rows: Number(rows[0]?.rows ?? 0), ok: Number(rows[0]?.ok ?? 0) };
    },
    async latencySteps(webhookId) {
      const { rows } = await client.query<{ block: string; indexed: number; matched: number; sent: number }>(
        `select e.block_number as block, ${epochMs('c.created_at')} as indexed, ${epochMs('e.created_at')} as matched,
                ${epochMs('a.attempted_at')} as sent
         from webhook_events e
         join chain_events c on c.seq = e.chain_seq
         join webhook_deliveries d on d.event_id = e.id
         join webhook_attempts a on a.delivery_id = d.id and a.attempt = 1
         where e.webhook_id = $1`,
        [webhookId],
      );
      return rows.map((row) => ({
        block: Number(row.block),
        indexedMs: Number(row.indexed),
        matchedMs: Number(row.matched),
        sentMs: Number(row.sent),
      }));
    },
    async batches(webhookIds) {
      const { rows } = await client.query<{
        webhook_id: string;
        started: number;
        first_send: number;
        last_answer: number;
        deliveries: string;
        send_ms: string;
        next_started: number | null;
      }>(
        `with batches as (
           select d.webhook_id, d.updated_at as started, min(a.attempted_at) as first_send,
                  max(a.attempted_at + a.latency_ms * interval '1 millisecond') as last_answer,
                  count(*) as deliveries, sum(a.latency_ms) as send_ms
           from webhook_deliveries d
           join webhook_attempts a on a.delivery_id = d.id
           where d.webhook_id = any($1)
           group by d.webhook_id, d.updated_at)
         select webhook_id, ${epochMs('started')} as started, ${epochMs('first_send')} as first_send,
                ${epochMs('last_answer')} as last_answer, deliveries, send_ms,
                ${epochMs('lead(started) over (partition by webhook_id order by started)')} as next_started
         from batches order by started`,
        [webhookIds],
      );
      return rows.map((row) => ({
        webhookId: row.webhook_id,
        startedMs: Number(row.started),
        firstSendMs: Number(row.first_send),
        lastAnswerMs: Number(row.last_answer),
        deliveries: Number(row.deliveries),
        sendMsSum: Number(row.send_ms),
        nextStartedMs: row.next_started === null ? null : Number(row.next_started),
      }));
    },
    close: () => client.end(),
  };
}
