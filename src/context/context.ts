import type { Logger } from 'pino';
import type { Config } from '../config/schema.ts';
import type { Shutdown } from '../core/shutdown.ts';
import type { Metrics } from '../observability/metrics.ts';

/** What every factory receives: passed explicitly, never imported as a global. */
export interface Context {
  readonly config: Config;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly shutdown: Shutdown;
}
