import type { Logger } from 'pino';
import type { AccountService } from '../accounts/service.ts';
import type { DashboardConfig } from '../config/dashboard-settings.ts';
import type { Database } from '../db/connect.ts';
import type { Mailer } from '../email/mailer.ts';
import type { UsageStore } from '../usage/store.ts';
import type { EmailVerificationStore } from './email-verification-store.ts';
import type { InvitationStore } from './invitation-store.ts';
import type { MailRequestLimits } from './mail-request-limits.ts';
import type { SessionStore } from './session-store.ts';
import type { SignInLimits } from './sign-in-limits.ts';
import type { UserStore } from './user-store.ts';
import type { UserTokenStore } from './user-token-store.ts';

/** What the dashboard's routes share; made once in the composition root. */
export interface DashboardDeps {
  db: Database;
  accounts: AccountService;
  users: UserStore;
  sessions: SessionStore;
  userTokens: UserTokenStore;
  invitations: InvitationStore;
  signInLimits: SignInLimits;
  /** Sign-ups and invitation acceptances waiting for their mailed link. */
  emailVerifications: EmailVerificationStore;
  /** Sign-ups and password-reset requests per email and per client address. */
  mailRequests: MailRequestLimits;
  /** Each key's last request (the latest minute in `usage_minutes`): no write per request. */
  usage: Pick<UsageStore, 'lastUsed'>;
  mailer: Mailer;
  logger: Logger;
  settings: DashboardConfig;
  /** Secure cookies (production mode). */
  secureCookie: boolean;
  /** Where links in mails and answers point: `dashboard.public_url`, else the service's own URL. */
  publicUrl: () => string;
}
