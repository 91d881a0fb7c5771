import type { FastifyRequest } from 'fastify';
import { forbidden, unauthorized } from '../core/errors.ts';
import type { SessionRow, UserRow } from '../db/tables/dashboard.ts';
import type { RequestGuard } from '../http/server.ts';
import { assertCsrf, changesState } from './csrf.ts';
import { sessionTokenOf } from './session-cookie.ts';
import type { SessionStore } from './session-store.ts';
import type { Membership, UserStore } from './user-store.ts';

/** The signed-in user of a dashboard request, and the account the session is on. */
export interface DashboardCaller {
  readonly session: SessionRow;
  readonly user: UserRow;
  readonly memberships: readonly Membership[];
  /** The session's current account; undefined when the user belongs to none. */
  readonly current: Membership | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the dashboard's session guard. */
    dashboard?: DashboardCaller;
  }
  interface FastifyContextConfig {
    /** A dashboard route reached without a session and without CSRF token (sign-in, sign-up, password reset). */
    withoutSession?: boolean;
  }
}

export interface SessionGuardDeps {
  users: UserStore;
  sessions: SessionStore;
  /** The dashboard's public origin, accepted as an Origin besides the request's own. */
  publicOrigin: () => string | undefined;
}

/** The caller of a request carrying a live session cookie, or undefined. */
export async function findCaller(deps: SessionGuardDeps, request: FastifyRequest): Promise<DashboardCaller | undefined> {
  const token = sessionTokenOf(request);
  const session = token ? await deps.sessions.find(token) : undefined;
  if (!session) return undefined;
  const [user, memberships] = await Promise.all([
    deps.users.findById(session.user_id),
    deps.users.membershipsOf(session.user_id),
  ]);
  if (!user) return undefined;
  // Removed from the session's account since: the session moves on to another of the user's accounts.
  const current = memberships.find((m) => m.account_id === session.account_id) ?? memberships[0];
  const accountId = current?.account_id ?? null;
  if (accountId !== session.account_id) await deps.sessions.setAccount(session.token_hash, accountId);
  return { session: { ...session, account_id: accountId }, user, memberships, current };
}

/** 401 without a live session; 403 for a state change without the session's CSRF token or from another origin. */
export function createSessionGuard(deps: SessionGuardDeps): RequestGuard {
  return async (request) => {
    if (request.routeOptions.config.withoutSession) return;
    const caller = await findCaller(deps, request);
    if (!caller) throw unauthorized('sign in first: no valid session');
    if (changesState(request.method)) assertCsrf(request, caller.session.csrf_token, deps.publicOrigin());
    request.dashboard = caller;
  };
}

/** The caller's current account, or 403 for a user who belongs to no account. */
export function currentAccountOf(caller: DashboardCaller): Membership {
  if (!caller.current) throw forbidden('you are not a member of any account');
  return caller.current;
}

/** The current account when the caller owns it; else 403 naming what only an owner may do. */
export function assertOwner(caller: DashboardCaller, action: string): Membership {
  const current = currentAccountOf(caller);
  if (current.role !== 'owner') throw forbidden(`only an owner of the account can ${action}`);
  return current;
}
