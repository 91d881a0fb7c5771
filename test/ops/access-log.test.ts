import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createAccessLog } from '../../src/observability/access-log.ts';
import { createLogger } from '../../src/observability/logger.ts';

/** A destination that keeps each write as it came. */
function captureWrites() {
  const writes: string[] = [];
  return { writes, destination: { write: (text: string) => void writes.push(text) } };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

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
    await nextTurn();
    const withoutTime = (line: string) => line.replace(/"time":"[^"]+"/, '"time":"T"');
    expect(ours.writes).toHaveLength(1);
    expect(withoutTime(ours.writes[0]!)).toBe(withoutTime(theirs.writes[0]!));
    expect(JSON.parse(ours.writes[0]!).time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('masks secret query parameters, escapes what the client sent, and leaves out an unknown address', async () => {
    const { writes, destination } = captureWrites();
    const log = createAccessLog(createLogger('info', destination));
    log.write({ reqId: 'r', method: 'GET', url: '/v1/ws/x/y?apiKey=svc_test_secret&a="b"\\', ip: undefined, status: 401, ms: 1 });
    await nextTurn();
    const line = JSON.parse(writes[0]!);
    expect(line.req).toEqual({ method: 'GET', url: '/v1/ws/x/y?apiKey=[redacted]&a="b"\\' });
    expect(writes[0]).not.toContain('svc_test_secret');
  });

  it('hands the lines of one event-loop turn to the destination in one write, before the next turn', async () => {
    const { writes, destination } = captureWrites();
    const log = createAccessLog(createLogger('info', destination));
    for (let i = 0; i < 3; i++) log.write({ reqId: `r${i}`, method: 'POST', url: '/', ip: '::1', status: 200, ms: i });
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toHaveLength(1);
    expect(
      writes[0]!
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line).reqId),
    ).toEqual(['r0', 'r1', 'r2']);
    log.write({ reqId: 'r3', method: 'POST', url: '/', ip: '::1', status: 200, ms: 3 });
    await nextTurn();
    expect(writes).toHaveLength(2);
  });

  it('is off below info: nothing is written', async () => {
    const { writes, destination } = captureWrites();
    const log = createAccessLog(createLogger('warn', destination));
    expect(log.enabled).toBe(false);
    log.write({ reqId: 'r', method: 'GET', url: '/', ip: '::1', status: 200, ms: 1 });
    await nextTurn();
    expect(writes).toEqual([]);
  });
});
