import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import type { InvariantArea } from './invariants.ts';
import { formatLagReport } from './report.ts';
import { type LagScenarioResult, runLagScenario } from './scenario.ts';

/** `npm run test:lag`'s scenario (test/lag/run.ts), 40 s of it, inside `npm test`: one run, its invariants by area. */
describe('one honest and one lagging upstream under load (40 s of the lag run)', () => {
  let database: TestDatabase;
  let result: LagScenarioResult;
  let report: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    result = await runLagScenario({
      durationMs: 40_000,
      database,
      seed: Number(process.env.LAG_SEED ?? 4032),
      episodes: { lagMs: [1_500, 4_000], syncedMs: [500, 2_500] },
    });
    report = formatLagReport(result);
  }, 150_000);
  afterAll(async () => {
    await database?.close();
  });

  const broken = (area: InvariantArea) =>
    result.invariants
      .filter((invariant) => invariant.area === area && invariant.gating && invariant.violations > 0)
      .map((i) => i.name);

  it('index and webhooks: no removed event, no event id twice, every block and transfer delivered once, no reorg', () => {
    expect(broken('index and webhooks'), report).toEqual([]);
  });

  it('tip served to clients: eth_blockNumber never goes back, no null receipt once its block was served (thousands of polls)', () => {
    const polls = result.invariants.find((invariant) => invariant.name.startsWith('eth_blockNumber'))!;
    expect(Number(polls.checked.split(' ')[0])).toBeGreaterThan(1_000);
    expect(broken('tip served to clients'), report).toEqual([]);
  });
});
