import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadConfig } from '../../src/config/load.ts';

describe('limits: settings', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'blockyard-limits-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  const load = (limits?: unknown) => {
    if (limits !== undefined) writeFileSync(join(cwd, 'blockyard.yaml'), stringify({ limits }));
    return loadConfig({ env: {}, cwd });
  };

  it('has the documented defaults (docs/limits.md)', () => {
    expect(load().limits).toEqual({
      maxConnections: 10_000,
      maxConnectionsPerIp: 1_000,
      maxBodyBytes: 65_536,
      wsMaxConnectionsPerAccount: 1_000,
      wsMaxConnectionsPerIp: 1_000,
      wsMaxSubscriptionsPerConnection: 100,
      wsMaxBufferedBytes: 1_048_576,
      wsMaxMessageBytes: 1_048_576,
      wsPingIntervalMs: 30_000,
      wsFeedIdleMs: 60_000,
      dataQueriesPerAccount: 4,
      statementTimeoutMs: 5_000,
      indexerStatementTimeoutMs: 120_000,
    });
  });

  it('takes each from the file, and names a bad or unknown one', () => {
    expect(load({ max_connections: 50, ws_max_subscriptions_per_connection: 5 }).limits).toMatchObject({
      maxConnections: 50,
      wsMaxSubscriptionsPerConnection: 5,
      maxConnectionsPerIp: 1_000,
    });
    expect(() => load({ max_connections: 0 })).toThrow(ConfigError);
    expect(() => load({ max_connections: 0 })).toThrow(/invalid setting limits\.max_connections \(in .*\): must be at least 1/);
    expect(() => load({ max_conections: 5 })).toThrow(/invalid setting limits\.max_conections \(in .*\): unknown setting/);
    expect(load({ data_queries_per_account: 1, statement_timeout_ms: 0 }).limits).toMatchObject({
      dataQueriesPerAccount: 1,
      statementTimeoutMs: 0,
    });
    expect(() => load({ data_queries_per_account: 0 })).toThrow(/limits\.data_queries_per_account .*must be at least 1/);
    expect(load({ ws_ping_interval_ms: 5_000 }).limits.wsPingIntervalMs).toBe(5_000);
    expect(() => load({ ws_ping_interval_ms: 10 })).toThrow(/limits\.ws_ping_interval_ms .*must be at least 1000/);
  });
});
