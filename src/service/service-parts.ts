import type { EnhancedMethods } from '../alchemy/enhanced-methods.ts';
import type { BundlerService } from '../bundler/bundler-service.ts';
import type { OpenDatabase } from '../db/connect.ts';
import type { HealthCheck } from '../health/health-check.ts';
import type { BackfillStore } from '../indexer/backfill-store.ts';
import type { IndexStore } from '../indexer/store.ts';
import type { DataQuerySlots } from '../limits/data-query-slots.ts';
import type { AccessControl } from './wire-accounts.ts';
import type { ChainData } from './wire-chain-data.ts';
import type { Dashboard } from './wire-dashboard.ts';
import type { Sponsorship } from './wire-sponsorship.ts';
import type { Upstreams } from './wire-upstreams.ts';
import type { Usage } from './wire-usage.ts';
import type { Webhooks } from './wire-webhooks.ts';

/** What the wiring steps made, as the HTTP server's routes and the WebSocket endpoint take it. */
export interface ServiceParts {
  readonly database: OpenDatabase;
  readonly upstreams: Upstreams;
  readonly access: AccessControl;
  readonly chainData: ChainData;
  readonly webhooks: Webhooks;
  readonly bundler: BundlerService;
  readonly sponsorship: Sponsorship;
  readonly usage: Usage;
  readonly dashboard: Dashboard;
  readonly indexStore: IndexStore;
  readonly backfillStore: BackfillStore;
  readonly health: HealthCheck;
  /** Alchemy's enhanced JSON-RPC methods, on /v1/rpc, the bundler's endpoint and WebSockets (src/alchemy). */
  readonly enhanced: EnhancedMethods;
  /** The per-account cap on data queries running at once (limits.data_queries_per_account), on every surface. */
  readonly dataQueries: DataQuerySlots;
}
