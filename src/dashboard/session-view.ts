import type { Static } from 'typebox';
import { resolveLimits } from '../limits/plans.ts';
import type { Session } from './schemas.ts';
import type { DashboardCaller } from './session-guard.ts';

/** The `Session` answer of docs/dashboard-api.md. */
export function sessionView(caller: DashboardCaller): Static<typeof Session> {
  const { user, current } = caller;
  return {
    user: { id: user.id, email: user.email, operator: user.operator },
    account: current
      ? {
          id: current.account_id,
          name: current.name,
          plan: current.plan,
          role: current.role,
          limits: resolveLimits(current.plan, current.limits),
        }
      : null,
    accounts: caller.memberships.map((m) => ({ id: m.account_id, name: m.name, role: m.role })),
    csrf_token: caller.session.csrf_token,
  };
}
