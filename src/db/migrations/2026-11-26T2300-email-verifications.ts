import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A sign-up (or a signed-in user's acceptance of an invitation) waiting for its mailed link: nothing
  // is created until the address is proven. Single use, short-lived; only the token's hash is stored.
  await sql`
    create table email_verifications (
      token_hash text primary key,
      purpose text not null check (purpose in ('signup', 'join')),
      email text not null check (email = lower(email)),
      password_hash text,
      account_name text,
      invitation_id text references invitations (id) on delete cascade,
      user_id text references users (id) on delete cascade,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      used_at timestamptz
    )`.execute(db);
  await sql`create index email_verifications_expires_idx on email_verifications (expires_at)`.execute(db);
  // Sign-ups and password-reset requests (each sends a mail), counted per email and per client address
  // over a sliding window; shared by every process.
  await sql`
    create table mail_requests (
      action text not null check (action in ('signup', 'password_reset')),
      email text not null,
      ip text not null,
      requested_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index mail_requests_email_idx on mail_requests (action, email, requested_at)`.execute(db);
  await sql`create index mail_requests_ip_idx on mail_requests (action, ip, requested_at)`.execute(db);
}
