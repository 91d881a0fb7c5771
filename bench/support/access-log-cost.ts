import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { destination as fileDestination } from 'pino';
import { type AccessEntry, createAccessLog } from '../../src/observability/access-log.ts';
import { createLogger } from '../../src/observability/logger.ts';

/** Lines per event-loop turn, as a loaded service writes them (several requests answered per turn). */
const linesPerTurn = 5;
const lines = 300_000;
const entry: AccessEntry = {
  reqId: '0f6b3c1e-7d2a-4c55-9a0e-2b8f4d6e1a90',
  method: 'POST',
  url: '/v1/rpc/ethereum/devnet',
  ip: '127.0.0.1',
  status: 200,
  ms: 0.42,
};

/**
 * CPU microseconds one access log line costs, its share of the writes included: the service's own
 * code (src/observability/access-log.ts) with the service's kind of destination (asynchronous, to a
 * file), against the same loop without the line, in this process. An A/B of two whole services could
 * not resolve it here: their CPU per request moves by 30% from one 5 s window to the next.
 */
export async function measureAccessLineUs(rounds = 3): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'blockyard-bench-access-log-'));
  try {
    const costs: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const empty = await cpuPerTurnItem(undefined);
      const destination = fileDestination({ dest: join(dir, `access-${round}.log`), sync: false });
      const withLine = await cpuPerTurnItem(createAccessLog(createLogger('info', destination)));
      // The last lines wait for the log's 100 ms flush; the destination must still be open then.
      await new Promise((resolve) => setTimeout(resolve, 200));
      destination.flushSync();
      destination.end();
      costs.push(withLine - empty);
    }
    return costs.sort((a, b) => a - b)[Math.floor(costs.length / 2)]!;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function cpuPerTurnItem(log: { write(entry: AccessEntry): void } | undefined): Promise<number> {
  const before = process.cpuUsage();
  let written = 0;
  await new Promise<void>((resolve) => {
    const turn = () => {
      for (let i = 0; i < linesPerTurn && written < lines; i++, written++) log?.write(entry);
      if (written < lines) setImmediate(turn);
      else resolve();
    };
    turn();
  });
  const used = process.cpuUsage(before);
  return (used.user + used.system) / lines;
}
