import { createCipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/webhooks/secrets.ts';
import { bindAllUnboundSecrets } from '../../src/webhooks/webhook-secrets.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { callApi, postWebhook, type Receiver, startReceiver, verifySignatures } from './support.ts';

const someAddress = '0x00000000000000000000000000000000000c0de1';

/** A secret sealed the way it was before secrets were bound to their webhook (v1: no associated data). */
function sealUnbound(keyHex: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(keyHex, 'hex'), iv);
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `v1.${iv.toString('base64')}.${cipher.getAuthTag().toString('base64')}.${data.toString('base64')}`;
}

describe('webhook signing secrets are bound to their webhook', () => {
  let t: TestService;
  let receiver: Receiver;
  let key: string;
  const logLines: string[] = [];

  beforeAll(async () => {
    const logDestination = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    t = await startTestService({ logDestination, logLevel: 'info' });
    receiver = await startReceiver();
    key = (await t.createKey()).key;
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    await receiver?.close();
  });

  const api = (method: string, path: string, body?: unknown) => callApi(t.url, key, method, path, body);
  const createWebhook = async () => {
    const created = await postWebhook(t.url, key, receiver.url, 'address_activity', { addresses: [someAddress] });
    expect(created.status).toBe(201);
    return created.body as { id: string; signing_secret: string };
  };
  const ciphertextOf = async (id: string) =>
    (await t.database.db.selectFrom('webhooks').select('secret_ciphertext').where('id', '=', id).executeTakeFirstOrThrow())
      .secret_ciphertext;
  const requestsOf = (id: string) => receiver.requests.filter((request) => request.json?.webhook_id === id);

  it('refuses a ciphertext copied onto another webhook: its deliveries are held and logged, the others go out', async () => {
    const victim = await createWebhook();
    const attacker = await createWebhook();
    // Someone with write access to the table copies the attacker's sealed secret onto the victim's row.
    await t.database.db
      .updateTable('webhooks')
      .set({ secret_ciphertext: await ciphertextOf(attacker.id) })
      .where('id', '=', victim.id)
      .execute();

    expect((await api('POST', `/v1/webhooks/${victim.id}/test`)).status).toBe(202);
    expect((await api('POST', `/v1/webhooks/${attacker.id}/test`)).status).toBe(202);
    await receiver.waitFor(() => requestsOf(attacker.id).length === 1, 10_000, "the intact webhook's test event");
    verifySignatures(requestsOf(attacker.id)[0]!, attacker.signing_secret);

    const deadline = Date.now() + 10_000;
    while (!logLines.some((line) => line.includes(victim.id) && line.includes('cannot be decrypted'))) {
      if (Date.now() > deadline) throw new Error('no log line about the undecryptable secret');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Nothing went out signed with the attacker's secret, and the delivery waits (not lost, not failed).
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(requestsOf(victim.id)).toEqual([]);
    const delivery = await t.database.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts'])
      .where('webhook_id', '=', victim.id)
      .executeTakeFirstOrThrow();
    expect(delivery).toEqual({ status: 'pending', attempts: 0 });
    const line = logLines.find((l) => l.includes(victim.id) && l.includes('cannot be decrypted'))!;
    expect(line).not.toContain(attacker.signing_secret.slice(6));

    // The worker lives on: another webhook created afterwards still delivers.
    const later = await createWebhook();
    expect((await api('POST', `/v1/webhooks/${later.id}/test`)).status).toBe(202);
    await receiver.waitFor(() => requestsOf(later.id).length === 1, 10_000, 'a later test event');
  });

  it('still signs with a secret sealed before the binding, and rewrites it bound', async () => {
    const webhook = await createWebhook();
    const keyHex = readFileSync(join(t.dataDir, 'encryption-key'), 'utf8').trim();
    const oldSecret = `whsec_${randomBytes(32).toString('base64')}`;
    await t.database.db
      .updateTable('webhooks')
      .set({ secret_ciphertext: sealUnbound(keyHex, oldSecret) })
      .where('id', '=', webhook.id)
      .execute();
    expect((await api('POST', `/v1/webhooks/${webhook.id}/test`)).status).toBe(202);
    await receiver.waitFor(() => requestsOf(webhook.id).length === 1, 10_000, 'the test event');
    verifySignatures(requestsOf(webhook.id)[0]!, oldSecret);
    // The rewrite commits with the delivery's transaction, which ends after the receiver's answer.
    const deadline = Date.now() + 5_000;
    while (!(await ciphertextOf(webhook.id)).startsWith('v2.') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(await ciphertextOf(webhook.id)).toMatch(/^v2\./);
  });

  it('binds every stored unbound secret in one pass (run when the webhooks role starts)', async () => {
    const webhook = await createWebhook();
    const keyHex = readFileSync(join(t.dataDir, 'encryption-key'), 'utf8').trim();
    const box = createSecretBox({ encryptionKey: keyHex, dataDir: t.dataDir });
    await t.database.db
      .updateTable('webhooks')
      .set({ secret_ciphertext: sealUnbound(keyHex, 'whsec_unbound') })
      .where('id', '=', webhook.id)
      .execute();
    const logger = pino({ level: 'silent' });
    expect(await bindAllUnboundSecrets(t.database.db, box, logger)).toBe(1);
    const bound = await ciphertextOf(webhook.id);
    expect(bound).toMatch(/^v2\./);
    expect(box.open(bound, webhook.id)).toBe('whsec_unbound');
    expect(() => box.open(bound, 'wh_other')).toThrow('cannot be decrypted');
    expect(await bindAllUnboundSecrets(t.database.db, box, logger)).toBe(0);
  });
});
