import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { PublicClient } from 'viem';
import type { Network } from '../chains/registry.ts';
import type { Tables } from '../db/tables.ts';
import type { createReputationStore } from './reputation-store.ts';

/** What the bundle loop's steps share: one network's node, its ops' table, the reputation counters, the log. */
export interface BundleContext {
  readonly db: Kysely<Tables>;
  readonly client: PublicClient;
  readonly network: Network;
  /** The network's name in the tables (`chain/network`). */
  readonly name: string;
  readonly logger: Logger;
  readonly reputation: ReturnType<typeof createReputationStore>;
}
