import type { Kysely } from 'kysely';
import type { Hex } from 'viem';
import { networkKey } from '../chains/network-key.ts';
import type { Network } from '../chains/registry.ts';
import type { Tables } from '../db/tables.ts';
import type { BundleLoop } from './bundle-loop.ts';
import { BundlerRpcError, bundlerErrorCodes } from './rpc-errors.ts';

/**
 * How long the answer waits for the op to be included once it is admitted; then it is the op's hash
 * and status, and the op goes on as any other (ask eth_getUserOperationReceipt later).
 */
const inclusionWaitMs = 10_000;
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
  /** pimlico_getUserOperationStatus's answer. */
  status: (network: Network, hash: Hex) => Promise<{ status: string; transactionHash: string | null }>;
}

/**
 * `pimlico_sendUserOperationNow` (Alto's extension): the op is validated and admitted exactly as
 * eth_sendUserOperation does, then bundled by itself at once, and the answer is its receipt (the shape
 * of eth_getUserOperationReceipt). An op that cannot go alone now, because an earlier op of its sender
 * is still pending or because this process does not run the network's bundler (no loop here, or
 * another process holds the bundler lease), is queued as usual and its receipt awaited. An op not
 * included within 10 s of its admission (the chain does not mine, the executors are busy) is answered
 * `{userOpHash, status, transactionHash}` as pimlico_getUserOperationStatus says them.
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

  /** The receipt, polled until `stopAt` (then undefined: the caller has answered the status by then). */
  async function awaitReceipt(network: Network, hash: Hex, stopAt: number): Promise<unknown> {
    for (;;) {
      const receipt = await deps.receipt(network, hash);
      if (receipt) return receipt;
      if (Date.now() > stopAt) return undefined;
      await new Promise((resolve) => setTimeout(resolve, receiptPollMs));
    }
  }

  /** Admission, bundling alone when it can, and the receipt; `admitted` is called once the op is in the mempool. */
  async function sendAndAwait(network: Network, params: unknown[], admitted: (hash: Hex) => number): Promise<unknown> {
    const op = await deps.identify(network, params);
    const name = networkKey(network);
    const loop = deps.loopOf(name);
    if (!loop?.active || (await hasEarlierOps(name, op))) {
      const hash = await deps.send(network, params);
      return awaitReceipt(network, hash, admitted(hash));
    }
    let admittedHash: Hex | undefined;
    let stopAt = Number.POSITIVE_INFINITY;
    let bundled: { tx: Hex | undefined } | undefined;
    try {
      bundled = {
        tx: await loop.bundleAlone([op], async () => {
          admittedHash = await deps.send(network, params);
          stopAt = admitted(admittedHash);
          // An earlier op of its sender was admitted while this one was (sent beside it): that goes first.
          if (await hasEarlierOps(name, op)) throw new Error('queued behind an earlier op of its sender');
        }),
      };
    } catch (error) {
      // Refused at admission: that is the answer. Admitted, but behind an earlier op, or no executor
      // was free, or its bundle failed (the node): the loop bundles it as any other.
      if (admittedHash === undefined) throw error;
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
    return awaitReceipt(network, admittedHash as Hex, stopAt);
  }

  return async function sendUserOperationNow(network: Network, params: unknown[]): Promise<unknown> {
    let hash: Hex | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let timeOut: (value: 'timed out') => void = () => undefined;
    const timedOut = new Promise<'timed out'>((resolve) => {
      timeOut = resolve;
    });
    const outcome = sendAndAwait(network, params, (admittedHash) => {
      hash = admittedHash;
      timer = setTimeout(() => timeOut('timed out'), inclusionWaitMs);
      return Date.now() + inclusionWaitMs;
    });
    // The bundle goes on (the loop watches it) after the answer: its end is nobody's answer then.
    outcome.catch(() => undefined);
    try {
      const first = await Promise.race([outcome, timedOut]);
      if (first !== 'timed out' && first !== undefined) return first;
    } finally {
      clearTimeout(timer);
    }
    const current = await deps.status(network, hash as Hex);
    return { userOpHash: hash, ...current };
  };
}
