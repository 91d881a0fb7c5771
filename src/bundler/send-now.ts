import type { Kysely } from 'kysely';
import type { Hex } from 'viem';
import { networkKey } from '../chains/network-key.ts';
import type { Network } from '../chains/registry.ts';
import type { Tables } from '../db/tables.ts';
import type { BundleLoop } from './bundle-loop.ts';
import { BundlerRpcError, bundlerErrorCodes } from './rpc-errors.ts';

/** How long the answer waits for the receipt of an op that could not go at once (queued behind others, another process bundles). */
const receiptWaitMs = 60_000;
const receiptPollMs = 100;

export interface SendNowDeps {
  db: Kysely<Tables>;
  loopOf: (network: string) => BundleLoop | undefined;
  /** The op's hash, sender and nonce as eth_sendUserOperation will store them (its params checked as it checks them). */
  identify: (network: Network, params: unknown[]) => Promise<{ hash: string; sender: string; nonce: bigint }>;
  /** eth_sendUserOperation: validation and admission to the mempool. */
  send: (network: Network, params: unknown[]) => Promise<Hex>;
  /** eth_getUserOperationReceipt's answer, null while there is none. */
  receipt: (network: Network, hash: Hex) => Promise<unknown>;
}

/**
 * `pimlico_sendUserOperationNow` (Alto's extension): the op is validated and admitted exactly as
 * eth_sendUserOperation does, then bundled by itself at once, and the answer is its receipt (the shape
 * of eth_getUserOperationReceipt). An op that cannot go alone now, because an earlier op of its sender
 * is still pending or because this process does not run the network's bundler (no loop here, or
 * another process holds the bundler lease), is queued as usual and its receipt awaited (60 s at most).
 */
export function createSendNow(deps: SendNowDeps) {
  async function hasEarlierOps(name: string, op: { hash: string; sender: string; nonce: bigint }): Promise<boolean> {
    const rows = await deps.db
      .selectFrom('user_operations')
      .select(['hash', 'nonce'])
      .where('network', '=', name)
      .where('sender', '=', op.sender)
      .where('status', 'in', ['pending', 'submitted'])
      .execute();
    const key = op.nonce >> 64n;
    return rows.some((row) => row.hash !== op.hash && BigInt(row.nonce) >> 64n === key && BigInt(row.nonce) < op.nonce);
  }

  async function awaitReceipt(network: Network, hash: Hex): Promise<unknown> {
    const deadline = Date.now() + receiptWaitMs;
    for (;;) {
      const receipt = await deps.receipt(network, hash);
      if (receipt) return receipt;
      if (Date.now() > deadline)
        throw new BundlerRpcError(
          bundlerErrorCodes.internal,
          `the operation ${hash} is in the mempool but not included within ${receiptWaitMs / 1000} s: ask eth_getUserOperationReceipt later`,
          { userOpHash: hash },
        );
      await new Promise((resolve) => setTimeout(resolve, receiptPollMs));
    }
  }

  return async function sendUserOperationNow(network: Network, params: unknown[]): Promise<unknown> {
    const op = await deps.identify(network, params);
    const name = networkKey(network);
    const loop = deps.loopOf(name);
    if (!loop?.active || (await hasEarlierOps(name, op))) return awaitReceipt(network, await deps.send(network, params));
    const admitted: { hash?: Hex } = {};
    let bundled: { tx: Hex | undefined } | undefined;
    try {
      bundled = {
        tx: await loop.bundleAlone([op], async () => {
          admitted.hash = await deps.send(network, params);
          // An earlier op of its sender was admitted while this one was (sent beside it): that goes first.
          if (await hasEarlierOps(name, op)) throw new Error('queued behind an earlier op of its sender');
        }),
      };
    } catch (error) {
      // Refused at admission: that is the answer. Admitted, but behind an earlier op, or no executor
      // was free, or its bundle failed (the node): the loop bundles it as any other.
      if (admitted.hash === undefined) throw error;
    }
    if (bundled && bundled.tx === undefined) {
      // The EntryPoint refused it when its bundle was estimated: the reason is recorded.
      const row = await deps.db.selectFrom('user_operations').select('reason').where('hash', '=', op.hash).executeTakeFirst();
      throw new BundlerRpcError(
        bundlerErrorCodes.rejectedByAccount,
        `the operation was refused when bundled: ${row?.reason ?? 'it was no longer pending'}`,
        { userOpHash: op.hash },
      );
    }
    return awaitReceipt(network, admitted.hash as Hex);
  };
}
