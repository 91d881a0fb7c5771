import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createAccessLog } from '../../src/observability/access-log.ts';
import { createLogger } from '../../src/observability/logger.ts';

/** A destination that keeps each write as it came. */
function captureWrites() {
  const writes: string[] = [];
  return { writes, destination: { write: (text: string) => void writes.push(text) } };
}

/** Past the access log's 100 ms flush interval. */
const afterFlush = () => new Promise((resolve) => setTimeout(resolve, 150));
const reqIds = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line).reqId);

describe('access log', () => {
  it('writes the line pino would write for the same fields, in the same key order', async () => {
    const ours = captureWrites();
    const theirs = captureWrites();
    const entry = { reqId: 'req-1', method: 'POST', url: '/v1/rpc/ethereum/devnet', ip: '127.0.0.1', status: 200, ms: 0.4242 };
    createAccessLog(createLogger('info', ours.destination)).write(entry);
    pino({ base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, theirs.destination).info(
      {
        reqId: entry.reqId,
        req: { method: entry.method, url: entry.url, ip: entry.ip },
        res: { status: entry.status },
        ms: 0.42,
      },
      'request',
    );
    await afterFlush();
    const withoutTime = (line: string) => line.replace(/"time":"[^"]+"/, '"time":"T"');
    expect(ours.writes).toHaveLength(1);
    expect(withoutTime(ours.writes[0]!)).toBe(withoutTime(theirs.writes[0]!));
    expect(JSON.parse(ours.writes[0]!).time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('masks secret query parameters, escapes what the client sent, and leaves out an unknown address', async () => {
    const { writes, destination } = captureWrites();
    const log = createAccessLog(createLogger('info', destination));
    log.write({ reqId: 'r', method: 'GET', url: '/v1/ws/x/y?apiKey=svc_test_secret&a="b"\\', ip: undefined, status: 401, ms: 1 });
    await afterFlush();
    const line = JSON.parse(writes[0]!);
    expect(line.req).toEqual({ method: 'GET', url: '/v1/ws/x/y?apiKey=[redacted]&a="b"\\' });
    expect(writes[0]).not.toContain('svc_test_secret');
  });

  it('hands the lines of 100 ms to the destination in one write, and a burst over 64 KiB at once', async () => {
    const { writes, destination } = captureWrites();
    const log = createAccessLog(createLogger('info', destination));
    for (let i = 0; i < 3; i++) log.write({ reqId: `r${i}`, method: 'POST', url: '/', ip: '::1', status: 200, ms: i });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(writes).toEqual([]);
    await afterFlush();
    expect(writes).toHaveLength(1);
    expect(reqIds(writes[0]!)).toEqual(['r0', 'r1', 'r2']);

    const longUrl = `/${'x'.repeat(1000)}`;
    for (let i = 0; i < 70; i++) log.write({ reqId: `b${i}`, method: 'GET', url: longUrl, ip: '::1', status: 404, ms: 1 });
    expect(writes).toHaveLength(2);
    expect(writes[1]!.length).toBeGreaterThanOrEqual(64 * 1024);
    await afterFlush();
    expect(reqIds(writes.slice(1).join(''))).toEqual(Array.from({ length: 70 }, (_, i) => `b${i}`));
  });

  it('writes what is pending when the process exits', () => {
    const script = [
      "import { createAccessLog } from './src/observability/access-log.ts';",
      "import { createLogger } from './src/observability/logger.ts';",
      "createAccessLog(createLogger('info')).write({ reqId: 'last-words', method: 'GET', url: '/', ip: '::1', status: 200, ms: 1 });",
      'process.exit(0);',
    ].join('\n');
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(child.status).toBe(0);
    expect(child.stdout).toContain('"reqId":"last-words"');
  });

  it('is off below info: nothing is written', async () => {
    const { writes, destination } = captureWrites();
    const log = createAccessLog(createLogger('warn', destination));
    expect(log.enabled).toBe(false);
    log.write({ reqId: 'r', method: 'GET', url: '/', ip: '::1', status: 200, ms: 1 });
    await afterFlush();
    expect(writes).toEqual([]);
  });
});
