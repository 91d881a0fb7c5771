import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';
import { postWebhook, type Receiver, startReceiver } from './support.ts';

describe('the paused-webhook notice through SMTP', () => {
  let smtp: SMTPServer;
  const mails: { to: string[]; raw: string }[] = [];
  let chain: IndexedChain;
  let receiver: Receiver;

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        let raw = '';
        stream.on('data', (chunk: Buffer) => {
          raw += chunk.toString('utf8');
        });
        stream.on('end', () => {
          mails.push({ to: (session.envelope.rcptTo || []).map((rcpt) => rcpt.address), raw });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const port = (smtp.server.address() as AddressInfo).port;
    chain = await startIndexedChain({
      settings: {
        webhooks: { retry_schedule_s: [0.1] },
        email: { smtp_url: `smtp://127.0.0.1:${port}`, from: 'Blockyard <noreply@blockyard.test>' },
      },
    });
    receiver = await startReceiver();
    receiver.answer = () => ({ status: 503 });
  }, 120_000);
  afterAll(async () => {
    await chain?.service.stop();
    await receiver?.close();
    await new Promise<void>((resolve) => smtp?.close(() => resolve()));
  });

  it('mails the account when its retries run out', async () => {
    const { key, accountId } = await chain.service.createKey();
    await chain.service.admin('PATCH', `/admin/accounts/${accountId}`, { email: 'owner@example.com' });
    const address = '0x00000000000000000000000000000000000e3a11' as Address;
    const config = { addresses: [address] };
    const created = (await postWebhook(chain.service.url, key, receiver.url, 'address_activity', config)).body as { id: string };
    await chain.wallet.sendTransaction({ to: address, value: 1n });
    const deadline = Date.now() + 15_000;
    while (mails.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toEqual(['owner@example.com']);
    expect(mails[0]!.raw).toContain(`Subject: Webhook ${created.id} paused`);
    expect(mails[0]!.raw).toMatch(/From: Blockyard <noreply@blockyard\.test>/);
    expect(mails[0]!.raw).toContain('answered 503');
    expect(receiver.requests).toHaveLength(2);
  });
});
