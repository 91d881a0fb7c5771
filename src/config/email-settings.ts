import type { FromSchema } from 'json-schema-to-ts';
import { closedObject } from './json-schema-parts.ts';

/** YAML `email:` section: where operator notices (a paused webhook) go. */
export const emailSettingsSchema = closedObject({
  smtp_url: { type: 'string', pattern: '^smtps?://' },
  from: { type: 'string', minLength: 3 },
});

export interface EmailConfig {
  readonly smtpUrl?: string;
  readonly from: string;
}

export function buildEmail(email: FromSchema<typeof emailSettingsSchema> = {}): EmailConfig {
  return { smtpUrl: email.smtp_url, from: email.from ?? 'Blockyard <blockyard@localhost>' };
}
