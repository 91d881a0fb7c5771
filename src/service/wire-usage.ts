import type { Context } from '../context/context.ts';
import type { OpenDatabase } from '../db/connect.ts';
import { createUsageRecorder, type UsageRecorder } from '../usage/recorder.ts';
import { createUsageStore, type UsageStore } from '../usage/store.ts';

export interface Usage {
  readonly store: UsageStore;
  /** Counts requests and writes them to `usage_minutes` every 5 s (processes serving the API). */
  readonly recorder?: UsageRecorder;
}

/** Usage: what each key used, per minute. */
export function wireUsage(ctx: Context, database: OpenDatabase): Usage {
  const store = createUsageStore(database.db);
  if (!ctx.config.roles.includes('api')) return { store };
  const recorder = createUsageRecorder({ write: store.write, logger: ctx.logger });
  // Registered before the HTTP server, so it writes after the server has drained its last requests.
  ctx.shutdown.add('usage recorder', () => recorder.close());
  return { store, recorder };
}
