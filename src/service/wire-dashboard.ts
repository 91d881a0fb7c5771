import type { Context } from '../context/context.ts';
import { type ExpiredRowsSweeper, startExpiredRowsSweeper } from '../dashboard/expired-rows-sweeper.ts';
import { createUserStore, type UserStore } from '../dashboard/user-store.ts';
import { createUserTokenStore, type UserTokenStore } from '../dashboard/user-token-store.ts';
import type { OpenDatabase } from '../db/connect.ts';

export interface Dashboard {
  readonly users: UserStore;
  readonly userTokens: UserTokenStore;
  /** Deletes expired sessions and one-time tokens every 15 min (processes serving the API). */
  readonly expiredRows?: ExpiredRowsSweeper;
}

/** The dashboard's people and their one-time tokens; its routes are mounted with the HTTP server's. */
export function wireDashboard(ctx: Context, database: OpenDatabase): Dashboard {
  const users = createUserStore(database.db);
  const userTokens = createUserTokenStore(database.db);
  if (!ctx.config.roles.includes('api')) return { users, userTokens };
  const expiredRows = startExpiredRowsSweeper({ db: database.db, logger: ctx.logger });
  ctx.shutdown.add('expired dashboard rows', () => expiredRows.close());
  return { users, userTokens, expiredRows };
}
