import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import type { Logger } from 'pino';

export interface MailMessage {
  /** Undefined for an account without an email address: the notice goes to the outbox with a note. */
  to: string | undefined;
  subject: string;
  text: string;
}

export interface MailResult {
  via: 'smtp' | 'outbox';
  /** The .eml file, when the message went to the outbox. */
  path?: string;
  messageId: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<MailResult>;
  close(): Promise<void>;
}

export interface MailerOptions {
  /** `smtp://host:port` or `smtps://user:pass@host:465`; without it every message goes to the outbox. */
  smtpUrl?: string;
  from: string;
  outboxDir: string;
  logger: Logger;
}

/** Long enough for a slow relay's greeting, short enough that a dead one doesn't hold a notice for minutes. */
const smtpTimeoutMs = 10_000;

export const noAddressNote = 'the account has no email address; set one with PATCH /admin/accounts/{id}';

/**
 * Sends operator notices through SMTP, or writes them as .eml files into the outbox when there is no SMTP
 * server, no recipient, or the server fails, so a notice is never lost.
 * @example createMailer({ smtpUrl: 'smtp://127.0.0.1:2525', from: 'blockyard@example.com', outboxDir, logger })
 */
export function createMailer(options: MailerOptions): Mailer {
  const { smtpUrl, from, outboxDir, logger } = options;
  const smtp = smtpUrl
    ? createTransport({
        url: smtpUrl,
        connectionTimeout: smtpTimeoutMs,
        greetingTimeout: smtpTimeoutMs,
        socketTimeout: smtpTimeoutMs,
        dnsTimeout: smtpTimeoutMs,
      })
    : undefined;
  const composer = createTransport({ streamTransport: true, buffer: true });

  async function writeToOutbox(message: MailMessage): Promise<MailResult> {
    const headers = message.to === undefined ? { 'X-Blockyard-Note': noAddressNote } : undefined;
    const info = await composer.sendMail({ from, to: message.to, subject: message.subject, text: message.text, headers });
    await mkdir(outboxDir, { recursive: true, mode: 0o700 });
    const name = `${new Date().toISOString().replaceAll(':', '-')}-${randomBytes(4).toString('hex')}.eml`;
    const path = join(outboxDir, name);
    // Written under a name no reader looks for, then renamed: whoever watches the outbox for .eml
    // files never reads one half written. With `buffer: true` the transport gives the whole message.
    const partial = `${path}.partial`;
    await writeFile(partial, info.message as Buffer, { mode: 0o600, flag: 'wx' });
    await rename(partial, path);
    logger.info({ path, noAddress: message.to === undefined }, 'notice written to the outbox');
    return { via: 'outbox', path, messageId: info.messageId };
  }

  return {
    async send(message) {
      if (!smtp || message.to === undefined) return writeToOutbox(message);
      try {
        const info = await smtp.sendMail({ from, to: message.to, subject: message.subject, text: message.text });
        return { via: 'smtp', messageId: info.messageId };
      } catch (error) {
        // The error object may carry the SMTP command or URL; log only what names the failure, and the host.
        const { code, responseCode, message: reason } = error as { code?: string; responseCode?: number; message?: string };
        logger.warn({ smtpHost: smtpHostOf(smtpUrl!), code, responseCode, reason }, 'SMTP sending failed; using the outbox');
        return writeToOutbox(message);
      }
    },
    async close() {
      smtp?.close();
      composer.close();
    },
  };
}

function smtpHostOf(smtpUrl: string): string {
  try {
    return new URL(smtpUrl).hostname;
  } catch {
    return 'unparseable SMTP URL';
  }
}
