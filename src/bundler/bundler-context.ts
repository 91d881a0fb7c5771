import type { Kysely } from 'kysely';
import type { PublicClient } from 'viem';
import type { Network } from '../chains/registry.ts';
import type { Tables } from '../db/tables.ts';
import type { L1FeeOracle } from '../gas/l1-fee/l1-fee-oracle.ts';
import type { BundleLoop } from './bundle-loop.ts';
import type { createReputationStore } from './reputation-store.ts';
import type { createSenderTurns } from './sender-turns.ts';

/** What the bundler's JSON-RPC methods (src/bundler/methods) share. */
export interface BundlerContext {
  readonly db: Kysely<Tables>;
  /** The network's node client, one per network. */
  readonly clientOf: (network: Network) => PublicClient;
  /** The network's L1 fee oracle (OP-stack, Arbitrum; one that charges nothing elsewhere). */
  readonly l1FeeOf: (network: Network) => L1FeeOracle;
  readonly reputation: ReturnType<typeof createReputationStore>;
  /** The next block's base fee, read at most every 500 ms (recent-base-fee.ts). */
  readonly recentBaseFee: (client: PublicClient) => Promise<bigint | null>;
  /** The sends of each sender's nonce key under way in this process (sender-turns.ts). */
  readonly turns: ReturnType<typeof createSenderTurns>;
  /** Networks whose upstream has no debug_traceCall: the ERC-7562 rules cannot be checked there. */
  readonly untraceable: Set<Network>;
  /** The bundle loop of a network in this process (the debug methods drive it). */
  readonly loopOf: (network: string) => BundleLoop | undefined;
  /** An op was queued on this network: bundle soon. */
  readonly queued: (network: string) => void;
}
