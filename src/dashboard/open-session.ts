import type { FastifyReply } from 'fastify';
import type { UserRow } from '../db/tables/dashboard.ts';
import { setSessionCookie } from './session-cookie.ts';
import type { DashboardCaller } from './session-guard.ts';
import type { SessionStore } from './session-store.ts';
import type { UserStore } from './user-store.ts';

export interface OpenSessionDeps {
  users: UserStore;
  sessions: SessionStore;
  /** Secure cookies (production mode). */
  secureCookie: boolean;
}

/** Starts a session for the user (on the given account, else their first) and sets its cookie. */
export async function openSession(
  deps: OpenSessionDeps,
  reply: FastifyReply,
  user: UserRow,
  accountId?: string,
): Promise<DashboardCaller> {
  const memberships = await deps.users.membershipsOf(user.id);
  const current = memberships.find((m) => m.account_id === accountId) ?? memberships[0];
  const { token, session } = await deps.sessions.create(user.id, current?.account_id ?? null);
  setSessionCookie(reply, token, deps.secureCookie);
  return { session, user, memberships, current };
}
