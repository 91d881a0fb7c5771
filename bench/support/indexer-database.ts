// With BENCH_DATABASE_URL, the indexer benchmark needs an empty index (a stored tip would skip the
// backfill): a database of its own on that server, dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface ThrowawayDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createThrowawayDatabase(serverUrl: string): Promise<ThrowawayDatabase> {
  const name = `blockyard_bench_${randomBytes(6).toString('hex')}`;
  await onServer(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropping: Promise<void> | undefined;
  return {
    url: url.toString(),
    drop() {
      dropping ??= onServer(serverUrl, `drop database if exists ${name} with (force)`);
      return dropping;
    },
  };
}

async function onServer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 10_000, query_timeout: 30_000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
