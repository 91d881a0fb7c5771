import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { type Hex, parseAbiItem } from 'viem';
import { publicClientsByNetwork } from '../chains/public-client.ts';
import type { Network } from '../chains/registry.ts';
import { anyOf } from '../db/any-of.ts';
import type { Tables } from '../db/tables.ts';
import { openSponsorships, settleSponsorship } from './sponsorship-store.ts';
import { weiToPicoUsd } from './usd.ts';

const userOperationEvent = parseAbiItem(
  'event UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, uint256 nonce, bool success, uint256 actualGasCost, uint256 actualGasUsed)',
);
/** An expired sponsorship is looked for on chain this long after its signature's end (the last block may still hold it). */
const graceMs = 30_000;
/** How far back the chain is searched for an op that landed through another bundler. */
const searchBlocks = 10_000n;

/**
 * Turns reservations into what happened: an op that landed is settled at its actual cost (from this
 * service's bundler receipts, or the EntryPoint's UserOperationEvent on chain when another bundler
 * sent it); one whose signature expired unused is released, so its reserve no longer counts.
 * Idempotent (only open rows change), so every API process may run it.
 */
export function startSponsorshipSettler(deps: {
  db: Kysely<Tables>;
  networks: readonly Network[];
  nativeUsdPrice: (network: Network) => Promise<string | null>;
  logger: Logger;
  intervalMs?: number;
}) {
  const clientOf = publicClientsByNetwork();
  let running: Promise<void> | undefined;
  let closed = false;

  async function settleNetwork(network: Network) {
    const key = `${network.config.chain}/${network.config.network}`;
    const open = await openSponsorships(deps.db, key);
    if (open.length === 0) return;
    const price = await deps.nativeUsdPrice(network);
    if (price === null) return;
    const landed = await deps.db
      .selectFrom('user_operations')
      .select(['hash', 'receipt'])
      .where('status', '=', 'included')
      .where(
        anyOf(
          'hash',
          open.map((row) => row.user_op_hash),
        ),
      )
      .execute();
    const costs = new Map<string, bigint>();
    for (const row of landed) {
      const cost = (row.receipt as { actualGasCost?: string } | null)?.actualGasCost;
      if (cost !== undefined) costs.set(row.hash, BigInt(cost));
    }
    const client = clientOf(network);
    // This host's clock only picks candidates: whether a signature expired is the chain's time (the
    // EntryPoint checks it against block timestamps), so a host whose clock is ahead releases nothing early.
    const byLocalClock = open.filter((row) => !costs.has(row.user_op_hash) && row.valid_until.getTime() < Date.now() - graceMs);
    const latest = byLocalClock.length > 0 ? await client.getBlock({ blockTag: 'latest' }) : undefined;
    const chainNowMs = Number(latest?.timestamp ?? 0n) * 1000;
    const expired = byLocalClock.filter((row) => row.valid_until.getTime() < chainNowMs - graceMs);
    if (latest && expired.length > 0) {
      const head = latest.number;
      for (let i = 0; i < expired.length; i += 50) {
        const chunk = expired.slice(i, i + 50);
        const logs = await client.getLogs({
          address: [...new Set(chunk.map((row) => row.entry_point as Hex))],
          event: userOperationEvent,
          args: { userOpHash: chunk.map((row) => row.user_op_hash as Hex) },
          fromBlock: head > searchBlocks ? head - searchBlocks : 0n,
          toBlock: head,
        });
        for (const log of logs) costs.set(log.args.userOpHash!.toLowerCase(), log.args.actualGasCost!);
      }
    }
    for (const row of open) {
      const cost = costs.get(row.user_op_hash);
      if (cost !== undefined) {
        await settleSponsorship(deps.db, row.id, { actualCostWei: cost, actualUsdPico: weiToPicoUsd(cost, price) });
      } else if (expired.includes(row)) {
        await settleSponsorship(deps.db, row.id, 'released');
      }
    }
  }

  async function tick() {
    for (const network of deps.networks) {
      if (network.config.kind !== 'evm') continue;
      await settleNetwork(network).catch((error: unknown) =>
        deps.logger.warn({ err: error, network: network.config.network }, 'gas sponsorships not settled this round'),
      );
    }
  }

  const timer = setInterval(() => {
    if (closed || running) return;
    running = tick().finally(() => {
      running = undefined;
    });
  }, deps.intervalMs ?? 2_000);

  return {
    /** Settles now (tests, and after a bundle lands). */
    async settleNow() {
      while (running) await running;
      running = tick().finally(() => {
        running = undefined;
      });
      await running;
    },
    async close() {
      closed = true;
      clearInterval(timer);
      while (running) await running;
    },
  };
}
