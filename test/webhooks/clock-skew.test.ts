import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexedChain } from '../indexer/support.ts';
import { type SplitDeployment, startDeliveryProcess, startSplitDeployment } from './crash-support.ts';
import { postWebhook, type ReceivedRequest, type Receiver, verifySignatures } from './support.ts';

/** Debian's libfaketime: moves the wall clock of the one process it is preloaded into. */
const libfaketime = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
const skewS = 30;
const retryS = 2;
const webhookSettings = { retry_schedule_s: [retryS, retryS], timeout_s: 5 };
const webhookCount = 4;

// One delivery process's clock is 30 s ahead; the other's is right; both share the database.
describe.skipIf(!existsSync(libfaketime))('webhook delivery with a worker whose clock is 30 s ahead', () => {
  let deployment: SplitDeployment;
  let chain: IndexedChain;
  let receiver: Receiver;
  let key: string;

  beforeAll(async () => {
    deployment = await startSplitDeployment('blockyard-skew-', webhookSettings);
    ({ chain, receiver, key } = deployment);
  }, 120_000);
  afterAll(async () => {
    await deployment?.stop();
  }, 60_000);

  const deliveryProcess = (name: string, env?: Record<string, string>) => {
    const dir = join(deployment.dataDir, name);
    mkdirSync(dir);
    return startDeliveryProcess(deployment.deliveryOptions(dir, env));
  };

  it('retries keep their schedule, nothing is sent twice, and signatures carry the right time', async () => {
    // Alone at first, so the skewed process makes the first attempts and schedules the retries.
    const skewed = await deliveryProcess('skewed', {
      LD_PRELOAD: libfaketime,
      FAKETIME: `+${skewS}s`,
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    });
    const secrets = new Map<string, string>();
    const addresses: Address[] = [];
    for (let i = 0; i < webhookCount; i++) {
      const address = `0x${(0xc10c_0000 + i).toString(16).padStart(40, '0')}` as Address;
      const response = await postWebhook(chain.service.url, key, receiver.url, 'address_activity', { addresses: [address] });
      const created = response.body as { id: string; signing_secret: string };
      expect(response.status, JSON.stringify(created)).toBe(201);
      secrets.set(created.id, created.signing_secret);
      addresses.push(address);
    }
    // Each event's first attempt fails; later ones succeed.
    const seen = new Set<string>();
    receiver.answer = (request) => {
      const first = !seen.has(request.json.id);
      seen.add(request.json.id);
      return { status: first ? 500 : 200 };
    };
    for (const to of addresses) {
      const hash = await chain.wallet.sendTransaction({ to, value: 1n });
      await chain.publicClient.waitForTransactionReceipt({ hash });
    }
    await receiver.waitFor(() => seen.size >= webhookCount, 30_000, 'a first attempt per webhook');
    // Now a second process with the right clock shares the deliveries.
    const normal = await deliveryProcess('normal');

    const byEvent = () => {
      const events = new Map<string, ReceivedRequest[]>();
      for (const request of receiver.requests) events.set(request.json.id, [...(events.get(request.json.id) ?? []), request]);
      return events;
    };
    // Retries are due 2 s after the failure: a schedule written from the skewed clock would be 30 s late.
    await receiver.waitFor(
      () => [...byEvent().values()].filter((requests) => requests.length >= 2).length >= webhookCount,
      20_000,
      'a retry of every event',
    );
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // anything sent twice would arrive by now

    const events = byEvent();
    expect(events.size).toBe(webhookCount);
    for (const [id, requests] of events) {
      // One failed attempt and one retry: no duplicate.
      expect(requests, `requests of event ${id}`).toHaveLength(2);
      const [failed, retried] = requests as [ReceivedRequest, ReceivedRequest];
      const gapMs = retried.at - failed.at;
      expect(gapMs, `retry of ${id}`).toBeGreaterThan(retryS * 900 - 300);
      expect(gapMs, `retry of ${id}`).toBeLessThan(retryS * 1100 + 2_000);
      for (const request of requests) {
        verifySignatures(request, secrets.get(request.json.webhook_id)!);
        // The database's clock signs: the receiver sees its own time, not the worker's.
        const signedAtMs = Number(request.headers['webhook-timestamp']) * 1000;
        expect(Math.abs(signedAtMs - request.at), `webhook-timestamp of ${id}`).toBeLessThan(3_000);
      }
    }
    // Nothing left to send: the queue-depth gauge an operator watches says so (read from the database).
    const [, url] = (await normal.waitForOutput(/Blockyard is running at (http:\/\/127\.0\.0\.1:\d+)/, 1_000)) as unknown as [
      string,
      string,
    ];
    const metrics = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
    expect(metrics).toMatch(/^blockyard_webhook_pending_deliveries\{state="due"\} 0$/m);
    expect(metrics).toMatch(/^blockyard_webhook_pending_deliveries\{state="scheduled"\} 0$/m);
    expect(skewed.exitInfo).toBeUndefined();
    expect(normal.exitInfo).toBeUndefined();
  }, 180_000);
});
