// The throughput baseline: a bare undici loop POSTing `count` webhook-like bodies to the receiver with
// `concurrency` requests in flight, no database, no signing, no payload rendering. The dispatcher is
// set up as the service's sender sets up its own (src/webhooks/send-delivery.ts).
import { Agent, request } from 'undici';
import type { ReceiverSample } from './webhook-protocol.ts';

export interface BaselineRun {
  count: number;
  seconds: number;
  errors: number;
  firstError?: string;
  /** CPU of this process (the loop's only work while it runs) per POST, microseconds. */
  cpuUsPerPost: number;
}

export async function runBaseline(options: {
  url: string;
  sample: ReceiverSample;
  count: number;
  concurrency: number;
  timeoutMs: number;
}): Promise<BaselineRun> {
  const agent = new Agent({ connections: 64, headersTimeout: 15_000, bodyTimeout: 15_000, keepAliveTimeout: 30_000 });
  const deadline = performance.now() + options.timeoutMs;
  const run: BaselineRun = { count: 0, seconds: 0, errors: 0, cpuUsPerPost: Number.NaN };
  let next = 0;
  const started = performance.now();
  const cpuFrom = process.cpuUsage();
  const lane = async () => {
    while (next < options.count) {
      if (performance.now() > deadline) throw new Error(`the baseline loop did not finish within ${options.timeoutMs / 1000} s`);
      const index = next++;
      try {
        const response = await request(options.url, {
          method: 'POST',
          // A new event id per request, as each delivery has.
          headers: {
            ...options.sample.headers,
            'x-webhook-idempotency-key': `baseline_${index}`,
            'webhook-id': `baseline_${index}`,
          },
          body: options.sample.body,
          dispatcher: agent,
          signal: AbortSignal.timeout(15_000),
        });
        await response.body.text();
        if (response.statusCode === 200) run.count++;
        else {
          run.errors++;
          run.firstError ??= `answered ${response.statusCode}`;
        }
      } catch (error) {
        run.errors++;
        run.firstError ??= (error as Error).message;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, lane));
    run.seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuFrom);
    run.cpuUsPerPost = (cpu.user + cpu.system) / options.count;
    return run;
  } finally {
    await agent.close();
  }
}
