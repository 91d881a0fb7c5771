import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createUsageRecorder, type UsageRow } from '../../src/usage/recorder.ts';

const minute = 60_000;
const silent = pino({ level: 'silent' });

/** A recorder on a hand-moved clock, writing into `written` (or failing while `failing` is set). */
function recorderUnderTest(options: { maxPendingMinutes?: number; maxPendingRows?: number } = {}) {
  const state = { now: 100 * minute + 5_000, failing: false, writes: 0, written: [] as UsageRow[] };
  const recorder = createUsageRecorder({
    ...options,
    logger: silent,
    intervalMs: 3_600_000,
    now: () => state.now,
    async write(rows) {
      state.writes++;
      if (state.failing) throw new Error('database down');
      state.written.push(...rows.map((row) => ({ ...row })));
    },
  });
  return { recorder, state };
}

const summary = (rows: readonly UsageRow[]) =>
  rows
    .map((r) => `${r.minute / minute} ${r.keyId} ${r.network} ${r.method} ${r.statusClass} ${r.requests} ${r.computeUnits}`)
    .sort();

describe('usage recorder', () => {
  it('adds requests and compute units per minute, key, network, method and status class', async () => {
    const { recorder, state } = recorderUnderTest();
    recorder.record('acc', 'k1', 'ethereum/devnet', 'eth_blockNumber', '2xx', 1);
    recorder.record('acc', 'k1', 'ethereum/devnet', 'eth_blockNumber', '2xx', 1);
    recorder.record('acc', 'k2', 'ethereum/devnet', 'eth_blockNumber', '2xx', 1);
    recorder.record('acc', 'k1', 'ethereum/devnet', 'eth_getLogs', '429', 0);
    state.now += minute;
    recorder.record('acc', 'k1', 'ethereum/devnet', 'eth_blockNumber', '2xx', 1);
    await recorder.flushNow();
    expect(state.writes).toBe(1);
    expect(summary(state.written)).toEqual([
      '100 k1 ethereum/devnet eth_blockNumber 2xx 2 2',
      '100 k1 ethereum/devnet eth_getLogs 429 1 0',
      '100 k2 ethereum/devnet eth_blockNumber 2xx 1 1',
      '101 k1 ethereum/devnet eth_blockNumber 2xx 1 1',
    ]);
    // Nothing pending: no write at all.
    await recorder.flushNow();
    expect(state.writes).toBe(1);
    await recorder.close();
  });

  it('keeps the counts of a failed write for the next one, adding what came since', async () => {
    const { recorder, state } = recorderUnderTest();
    recorder.record('acc', 'k1', '', 'GET /v1/usage', '2xx', 5);
    state.failing = true;
    await recorder.flushNow();
    expect(state.written).toEqual([]);
    recorder.record('acc', 'k1', '', 'GET /v1/usage', '2xx', 5);
    state.failing = false;
    await recorder.flushNow();
    expect(summary(state.written)).toEqual(['100 k1  GET /v1/usage 2xx 2 10']);
    await recorder.close();
  });

  it('drops the oldest minutes beyond the pending bound while writes fail', async () => {
    const { recorder, state } = recorderUnderTest({ maxPendingMinutes: 3 });
    state.failing = true;
    for (let i = 0; i < 5; i++) {
      recorder.record('acc', 'k1', '', 'eth_chainId', '2xx', 1);
      await recorder.flushNow();
      state.now += minute;
    }
    state.failing = false;
    await recorder.flushNow();
    expect(summary(state.written)).toEqual([
      '102 k1  eth_chainId 2xx 1 1',
      '103 k1  eth_chainId 2xx 1 1',
      '104 k1  eth_chainId 2xx 1 1',
    ]);
    await recorder.close();
  });

  it('bounds the distinct rows it holds between writes', async () => {
    const { recorder, state } = recorderUnderTest({ maxPendingRows: 2 });
    recorder.record('acc', 'k1', '', 'a', '2xx', 1);
    recorder.record('acc', 'k1', '', 'b', '2xx', 1);
    recorder.record('acc', 'k1', '', 'c', '2xx', 1);
    // An existing row still counts.
    recorder.record('acc', 'k1', '', 'a', '2xx', 1);
    await recorder.flushNow();
    expect(summary(state.written)).toEqual(['100 k1  a 2xx 2 2', '100 k1  b 2xx 1 1']);
    await recorder.close();
  });

  it('writes a flush asked for during another one, and what is pending at close', async () => {
    let release: () => void = () => undefined;
    let started: () => void = () => undefined;
    const writing = new Promise<void>((resolve) => (started = resolve));
    const batches: number[] = [];
    const recorder = createUsageRecorder({
      logger: silent,
      intervalMs: 3_600_000,
      async write(rows) {
        batches.push(rows.reduce((sum, row) => sum + row.requests, 0));
        if (batches.length > 1) return;
        await new Promise<void>((resolve) => {
          release = resolve;
          started();
        });
      },
    });
    recorder.record('acc', 'k1', '', 'm', '2xx', 1);
    const first = recorder.flushNow();
    await writing;
    recorder.record('acc', 'k1', '', 'm', '2xx', 1);
    recorder.record('acc', 'k1', '', 'm', '2xx', 1);
    const second = recorder.flushNow();
    release();
    await Promise.all([first, second]);
    recorder.record('acc', 'k1', '', 'm', '2xx', 1);
    await recorder.close();
    expect(batches).toEqual([1, 2, 1]);
  });

  it('flushes on its own every interval', async () => {
    const written: UsageRow[] = [];
    const recorder = createUsageRecorder({ logger: silent, intervalMs: 20, write: async (rows) => void written.push(...rows) });
    recorder.record('acc', 'k1', '', 'm', '2xx', 3);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(written.map((row) => row.computeUnits)).toEqual([3]);
    await recorder.close();
  });
});
