import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { Tables } from '../db/tables.ts';
import type { ChainEvent } from '../events/chain-event.ts';
import { accountDeployedTopic } from './wallet-abis.ts';

/**
 * Marks wallets deployed from the chain event stream: the EntryPoint's `AccountDeployed(userOpHash,
 * sender, factory, paymaster)` log names the wallet; its block gives `deployed_at`, its transaction
 * `deploy_tx`. A reorg that removes the log takes the deployment back.
 */
export function createDeploymentWatcher(deps: {
  db: Kysely<Tables>;
  entryPoints: (network: string) => readonly string[];
  logger: Logger;
}) {
  return async (events: readonly ChainEvent[]): Promise<void> => {
    for (const event of events) {
      if (event.type !== 'log') continue;
      const data = event.data as { address: string; topics: string[]; transaction_hash: string };
      if (data.topics[0] !== accountDeployedTopic || !deps.entryPoints(event.network).includes(data.address)) continue;
      const sender = `0x${(data.topics[2] ?? '').slice(26)}`;
      const wallets = deps.db.updateTable('wallets').where('network', '=', event.network).where(sql`lower(address)`, '=', sender);
      try {
        if (event.removed) {
          await wallets.set({ deployed_at: null, deploy_tx: null }).where('deploy_tx', '=', data.transaction_hash).execute();
        } else {
          await wallets
            .set({
              deploy_tx: data.transaction_hash,
              deployed_at: sql`coalesce((select timestamp from index_blocks where network = ${event.network} and number = ${event.blockNumber}), now())`,
            })
            .execute();
        }
      } catch (error) {
        deps.logger.warn({ err: error, wallet: sender }, 'could not record a wallet deployment');
      }
    }
  };
}
