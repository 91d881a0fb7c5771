import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A user without a password (made by an operator, or the development user) signs in by a link.
  await sql`
    create table users (
      id text primary key,
      email text not null unique check (email = lower(email)),
      password_hash text,
      operator boolean not null default false,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create table account_members (
      account_id text not null references accounts (id) on delete cascade,
      user_id text not null references users (id) on delete cascade,
      role text not null check (role in ('owner', 'member')),
      created_at timestamptz not null default now(),
      primary key (account_id, user_id)
    )`.execute(db);
  await sql`create index account_members_user_idx on account_members (user_id)`.execute(db);
  await sql`
    create table sessions (
      token_hash text primary key,
      user_id text not null references users (id) on delete cascade,
      account_id text references accounts (id) on delete set null,
      csrf_token text not null,
      created_at timestamptz not null default now(),
      last_seen_at timestamptz not null default now(),
      expires_at timestamptz not null
    )`.execute(db);
  await sql`create index sessions_user_idx on sessions (user_id)`.execute(db);
  await sql`
    create table invitations (
      id text primary key,
      account_id text not null references accounts (id) on delete cascade,
      email text not null,
      role text not null check (role in ('owner', 'member')),
      token_hash text not null unique,
      created_by text references users (id) on delete set null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      accepted_at timestamptz,
      revoked_at timestamptz
    )`.execute(db);
  await sql`create index invitations_account_idx on invitations (account_id, created_at)`.execute(db);
  // Password resets and one-time sign-in links: single use, short-lived.
  await sql`
    create table user_tokens (
      token_hash text primary key,
      user_id text not null references users (id) on delete cascade,
      purpose text not null check (purpose in ('password_reset', 'sign_in')),
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      used_at timestamptz
    )`.execute(db);
  // Failed sign-ins, counted per email and per client address over a sliding window; shared by every process.
  await sql`
    create table sign_in_failures (
      email text not null,
      ip text not null,
      failed_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index sign_in_failures_email_idx on sign_in_failures (email, failed_at)`.execute(db);
  await sql`create index sign_in_failures_ip_idx on sign_in_failures (ip, failed_at)`.execute(db);
}
