import { openLagDatabase } from './lag-database.ts';
import { formatLagReport } from './report.ts';
import { runLagScenario } from './scenario.ts';

/**
 * `npm run test:lag`: issue 32's must-show. The service runs LAG_MINUTES minutes (default 5) with an
 * honest upstream and one that lags 1-2 blocks in episodes, under load, with webhooks delivering to a
 * real receiver; prints the invariants and exits 1 when one broke. LAG_SEED replays the episodes.
 */
const minutes = Number(process.env.LAG_MINUTES ?? 5);
const seed = Number(process.env.LAG_SEED ?? Date.now() % 1_000_000);
if (!(minutes > 0)) {
  process.stderr.write(`LAG_MINUTES must be a positive number, not ${process.env.LAG_MINUTES}\n`);
  process.exit(2);
}
const started = Date.now();
const say = (line: string) =>
  process.stdout.write(`[lag ${String(Math.round((Date.now() - started) / 1000)).padStart(4)} s] ${line}\n`);

async function main(): Promise<number> {
  say(`${minutes} min, seed ${seed} (LAG_SEED=${seed} replays the episodes)`);
  const database = await openLagDatabase();
  try {
    const result = await runLagScenario({ durationMs: minutes * 60_000, database, seed, progress: say });
    process.stdout.write(formatLagReport(result));
    return result.passed ? 0 : 1;
  } finally {
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`the lag run could not finish: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
