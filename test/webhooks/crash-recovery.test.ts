import { parseAbiItem } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devAccount, type IndexedChain } from '../indexer/support.ts';
import { type CliProcess, eventually } from '../support/cli.ts';
import { deployTestContracts, type TestContracts } from '../support/contracts.ts';
import {
  type DeliveryProcessOptions,
  mintStorm,
  type SplitDeployment,
  startDeliveryProcess,
  startSplitDeployment,
} from './crash-support.ts';
import { postWebhook, type ReceivedRequest, type Receiver, verifySignatures } from './support.ts';

const transfers = 1_000;
/** The receiver answers this many deliveries, then holds every further one open until the kill: the kill lands mid-batch. */
const answeredBeforeKill = 350;
/** Nothing should fail; if an attempt does, its retry comes within the bounded wait, not 10 s later. */
const webhookSettings = { retry_schedule_s: [0.2, 0.5, 1], timeout_s: 15 };
const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

/** What identifies a Transfer on the chain: its transaction and its log index there. */
const keyOf = (txHash: string, logIndex: number) => `${txHash.toLowerCase()}:${logIndex}`;
const keyOfRequest = (request: ReceivedRequest) => keyOf(request.json.data.tx_hash, request.json.data.log_index);

describe('webhook delivery after kill -9 of the delivery process', () => {
  let deployment: SplitDeployment;
  let chain: IndexedChain;
  let contracts: TestContracts;
  let receiver: Receiver;
  let key: string;
  let delivery: DeliveryProcessOptions;

  beforeAll(async () => {
    // This process indexes and serves the API; deliveries are another process's job.
    deployment = await startSplitDeployment('blockyard-crash-', webhookSettings);
    ({ chain, receiver, key } = deployment);
    contracts = await deployTestContracts(chain.service.anvil.url);
    delivery = deployment.deliveryOptions(deployment.dataDir);
    await chain.synced();
  }, 120_000);
  afterAll(async () => {
    await deployment?.stop();
  }, 60_000);

  it('every one of 1,000 transfers arrives at least once, with one event id each, across a kill -9 and a restart', async () => {
    let worker: CliProcess = await startDeliveryProcess(delivery);

    const created = await postWebhook(chain.service.url, key, receiver.url, 'token_transfer', { contracts: [contracts.token] });
    const webhook = created.body as { id: string; signing_secret: string };
    expect(created.status, JSON.stringify(webhook)).toBe(201);

    const answered: ReceivedRequest[] = [];
    const held: ReceivedRequest[] = [];
    let holding = true;
    receiver.answer = (request) => {
      if (holding && answered.length >= answeredBeforeKill) {
        held.push(request);
        return { status: 200, hang: true };
      }
      answered.push(request);
      return { status: 200 };
    };

    const storm = mintStorm({
      anvilUrl: chain.service.anvil.url,
      token: contracts.token,
      account: devAccount,
      count: transfers,
      perBlock: 100,
    });
    storm.catch(() => undefined); // awaited below; a failure must not surface as an unhandled rejection first

    // Deliveries answered 200 whose batch has not committed, and some in flight: now the process dies.
    await receiver.waitFor(() => held.length > 0, 90_000, `${answeredBeforeKill} answered deliveries, then one held`);
    worker.child.kill('SIGKILL');
    const exit = await worker.waitForExit(10_000);
    expect(exit.signal).toBe('SIGKILL');
    const heldAtKill = held.length;
    holding = false;

    worker = await startDeliveryProcess(delivery);
    const { fromBlock, toBlock } = await storm;
    const logs = await chain.publicClient.getLogs({ address: contracts.token, event: transferEvent, fromBlock, toBlock });
    expect(logs).toHaveLength(transfers);
    const onChain = new Set(logs.map((log) => keyOf(log.transactionHash, log.logIndex)));
    expect(onChain.size).toBe(transfers);

    const answeredKeys = () => new Set(answered.map(keyOfRequest));
    const missing = () => {
      const got = answeredKeys();
      return [...onChain].filter((k) => !got.has(k));
    };
    await receiver
      .waitFor(() => answered.length >= transfers && missing().length === 0, 120_000)
      .catch(() => {
        const left = missing();
        throw new Error(
          `${left.length} of ${transfers} transfers not answered 200 within 120 s, e.g. ${left.slice(0, 3).join(', ')}`,
        );
      });

    // Against the chain: none missing, nothing else.
    const got = answeredKeys();
    expect(
      [...onChain].filter((k) => !got.has(k)),
      'transfers never delivered',
    ).toEqual([]);
    expect(
      [...got].filter((k) => !onChain.has(k)),
      'deliveries of no transfer',
    ).toEqual([]);

    // Every request (the held ones too) is for this webhook and signed with its secret.
    for (const request of receiver.requests) {
      expect(request.json.webhook_id).toBe(webhook.id);
      expect(request.json.event_type).toBe('token_transfer');
      verifySignatures(request, webhook.signing_secret);
    }

    // One event per transfer: a transfer's duplicates carry the same id and the same body; only the signature headers differ.
    const byKey = new Map<string, ReceivedRequest[]>();
    for (const request of receiver.requests) {
      const k = keyOfRequest(request);
      byKey.set(k, [...(byKey.get(k) ?? []), request]);
    }
    expect(byKey.size).toBe(transfers);
    const ids = new Set<string>();
    let duplicates = 0;
    for (const [k, requests] of byKey) {
      const [first, ...again] = requests as [ReceivedRequest, ...ReceivedRequest[]];
      ids.add(first.json.id);
      duplicates += again.length;
      for (const request of again) {
        expect(request.json.id, `event id of ${k}`).toBe(first.json.id);
        expect(request.body, `body of ${k}`).toBe(first.body);
        for (const header of ['content-type', 'user-agent', 'x-webhook-event', 'x-webhook-idempotency-key', 'webhook-id']) {
          expect(request.headers[header], `${header} of ${k}`).toBe(first.headers[header]);
        }
      }
    }
    expect(ids.size).toBe(transfers);
    // The held deliveries were sent again by the new process (their claims died with the old one).
    expect(heldAtKill).toBeGreaterThan(0);
    expect(duplicates).toBeGreaterThanOrEqual(heldAtKill);
    for (const request of held) expect(got.has(keyOfRequest(request)), `held ${request.json.id} delivered again`).toBe(true);

    // The outbox agrees once the last batch has committed: one delivery per transfer, each succeeded.
    const statuses = await eventually(
      async () => {
        const rows = await chain.service.database.db
          .selectFrom('webhook_deliveries')
          .select(['status', (eb) => eb.fn.countAll<string>().as('count')])
          .where('webhook_id', '=', webhook.id)
          .groupBy('status')
          .execute();
        const counted = rows.map((row) => ({ status: row.status, count: Number(row.count) }));
        return counted.length === 1 && counted[0]?.status === 'succeeded' ? counted : undefined;
      },
      { timeoutMs: 30_000, what: 'every delivery of the webhook to be recorded as succeeded' },
    );
    expect(statuses).toEqual([{ status: 'succeeded', count: transfers }]);
    expect(worker.exitInfo).toBeUndefined();
  }, 300_000);
});
