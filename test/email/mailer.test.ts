import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { SMTPServer } from 'smtp-server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMailer, type Mailer, noAddressNote } from '../../src/email/mailer.ts';

const from = 'Blockyard <blockyard@example.test>';
const notice = { to: 'ops@example.test', subject: 'Your webhook was paused', text: 'Webhook wh_1 failed 50 times in a row.' };

interface ReceivedMail {
  from: string | undefined;
  to: string[];
  raw: string;
}

/** A real SMTP server on a free loopback port; each received message goes to `received`. */
async function startSmtpServer(): Promise<{ url: string; received: ReceivedMail[]; close(): Promise<void> }> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const envelopeFrom = session.envelope.mailFrom;
        received.push({
          from: envelopeFrom ? envelopeFrom.address : undefined,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A loopback port that was free a moment ago and has nothing listening on it now. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** A pino logger whose lines are kept as text, to check what a failure logs. */
function capturingLogger(): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}

/** The header block of a raw message, with folded lines unfolded. */
function headersOf(raw: string): string {
  return raw.split('\r\n\r\n')[0]!.replace(/\r\n[ \t]+/g, ' ');
}

describe('mailer', () => {
  let dir: string;
  let outboxDir: string;
  let mailer: Mailer | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'blockyard-mailer-'));
    outboxDir = join(dir, 'outbox');
  });

  afterEach(async () => {
    await mailer?.close();
    mailer = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers through SMTP with the right From, To, Subject and body', async () => {
    const smtp = await startSmtpServer();
    try {
      mailer = createMailer({ smtpUrl: smtp.url, from, outboxDir, logger: pino({ level: 'silent' }) });
      const result = await mailer.send(notice);

      expect(result.via).toBe('smtp');
      expect(result.path).toBeUndefined();
      expect(result.messageId).toMatch(/^<.+@.+>$/);
      expect(smtp.received).toHaveLength(1);
      const mail = smtp.received[0]!;
      expect(mail.from).toBe('blockyard@example.test');
      expect(mail.to).toEqual(['ops@example.test']);
      const headers = headersOf(mail.raw);
      expect(headers).toContain('From: Blockyard <blockyard@example.test>');
      expect(headers).toContain('To: ops@example.test');
      expect(headers).toContain(`Subject: ${notice.subject}`);
      expect(headers).toContain(`Message-ID: ${result.messageId}`);
      expect(mail.raw).toContain(notice.text);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      await smtp.close();
    }
  });

  it('writes a .eml file (mode 0600, in a 0700 folder) when there is no SMTP URL', async () => {
    mailer = createMailer({ from, outboxDir, logger: pino({ level: 'silent' }) });
    const result = await mailer.send(notice);

    expect(result.via).toBe('outbox');
    expect(result.path).toBeDefined();
    const path = result.path!;
    expect(readdirSync(outboxDir)).toEqual([path.slice(outboxDir.length + 1)]);
    expect(path.slice(outboxDir.length + 1)).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z-[0-9a-f]+\.eml$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(outboxDir).mode & 0o777).toBe(0o700);
    const raw = readFileSync(path, 'utf8');
    const headers = headersOf(raw);
    expect(headers).toContain('From: Blockyard <blockyard@example.test>');
    expect(headers).toContain('To: ops@example.test');
    expect(headers).toContain(`Subject: ${notice.subject}`);
    expect(headers).toContain(`Message-ID: ${result.messageId}`);
    expect(headers).toContain('MIME-Version: 1.0');
    expect(headers).not.toContain('X-Blockyard-Note');
    expect(raw).toContain(notice.text);
  });

  it('falls back to the outbox when the SMTP server is down, logging the host but not the credentials', async () => {
    const port = await closedPort();
    const { logger, lines } = capturingLogger();
    mailer = createMailer({ smtpUrl: `smtp://notifier:s3cret-pw@127.0.0.1:${port}`, from, outboxDir, logger });
    const result = await mailer.send(notice);

    expect(result.via).toBe('outbox');
    const raw = readFileSync(result.path!, 'utf8');
    expect(headersOf(raw)).toContain('To: ops@example.test');
    expect(headersOf(raw)).toContain(`Subject: ${notice.subject}`);
    expect(raw).toContain(notice.text);
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toMatchObject([
      { level: 40, smtpHost: '127.0.0.1', code: 'ESOCKET' },
      { level: 30, path: result.path },
    ]);
    expect(lines.join('')).not.toContain('s3cret-pw');
    expect(lines.join('')).not.toContain('notifier');
  });

  it('writes to the outbox with a note, and no To, when the account has no email address', async () => {
    const smtp = await startSmtpServer();
    try {
      mailer = createMailer({ smtpUrl: smtp.url, from, outboxDir, logger: pino({ level: 'silent' }) });
      const result = await mailer.send({ ...notice, to: undefined });

      expect(result.via).toBe('outbox');
      expect(smtp.received).toEqual([]);
      const raw = readFileSync(result.path!, 'utf8');
      const headers = headersOf(raw);
      expect(headers).toContain(`X-Blockyard-Note: ${noAddressNote}`);
      expect(headers).not.toMatch(/^To:/m);
      expect(headers).toContain(`Subject: ${notice.subject}`);
      expect(raw).toContain(notice.text);
    } finally {
      await smtp.close();
    }
  });
});
