import type { ColumnType, Selectable } from 'kysely';
import type { Nullable, Timestamp } from './column-types.ts';

// The dashboard's users, their sessions, invitations, one-time tokens and the limits on mails and sign-ins.

export type MemberRole = 'owner' | 'member';

export interface UsersTable {
  id: string;
  /** Lower-case. */
  email: string;
  /** `scrypt$…` (src/dashboard/passwords.ts); null: signs in by a link only. */
  password_hash: string | null;
  operator: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Timestamp;
}

export interface AccountMembersTable {
  account_id: string;
  user_id: string;
  role: MemberRole;
  created_at: Timestamp;
}

export interface SessionsTable {
  /** Hex SHA-256 of the cookie's token: the token itself is never stored. */
  token_hash: string;
  user_id: string;
  /** The account the dashboard shows; null when the user belongs to none. */
  account_id: string | null;
  csrf_token: string;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
}

export interface InvitationsTable {
  id: string;
  account_id: string;
  email: string;
  role: MemberRole;
  token_hash: string;
  created_by: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  accepted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface UserTokensTable {
  token_hash: string;
  user_id: string;
  purpose: 'password_reset' | 'sign_in';
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface EmailVerificationsTable {
  token_hash: string;
  purpose: 'signup' | 'join';
  email: string;
  password_hash: Nullable<string>;
  account_name: Nullable<string>;
  invitation_id: Nullable<string>;
  user_id: Nullable<string>;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface MailRequestsTable {
  action: 'signup' | 'password_reset';
  email: string;
  ip: string;
  requested_at: Timestamp;
}

export interface SignInFailuresTable {
  email: string;
  ip: string;
  failed_at: Timestamp;
}

export type UserRow = Selectable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type InvitationRow = Selectable<InvitationsTable>;
