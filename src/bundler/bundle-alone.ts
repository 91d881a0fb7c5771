import type { Hex } from 'viem';
import type { UserOperationRow } from '../db/tables/bundler.ts';
import { BundlerRpcError, bundlerErrorCodes } from './rpc-errors.ts';

/** How long a bundle of its own waits for an executor to be free (each is busy until its bundle's receipt). */
const executorWaitMs = 60_000;
const executorPollMs = 10;

/**
 * pimlico_sendUserOperationNow's part of the bundle loop (src/bundler/bundle-loop.ts): the ops are
 * claimed before `admit` writes them to the mempool, so the loop's own rounds, which skip claimed ops
 * and senders, never put them in another bundle; then they go alone on the first free executor, once
 * no bundle on its way holds an op they are in storage conflict with (STO-041), and claim the storage
 * they touched so no later bundle takes an op in conflict with them.
 */
export async function bundleAlone<E extends { busy: boolean }>(deps: {
  ops: readonly { hash: string; sender: string }[];
  admit: () => Promise<void>;
  claim: (ops: readonly { hash: string; sender: string; storage_owners?: readonly string[] | null }[]) => () => void;
  conflictsWithClaimed: (row: UserOperationRow) => boolean;
  load: (hashes: readonly string[]) => Promise<UserOperationRow[]>;
  executors: readonly E[];
  bundleWith: (executor: E, rows: UserOperationRow[]) => Promise<Hex | undefined>;
  isClosed: () => boolean;
  /** Counts the bundle among those in flight (the loop's close waits for them). */
  inFlight: (change: 1 | -1) => void;
}): Promise<Hex | undefined> {
  const release = deps.claim(deps.ops);
  try {
    await deps.admit();
    const rows = (await deps.load(deps.ops.map((op) => op.hash))).filter((row) => row.status === 'pending');
    if (rows.length === 0) return undefined;
    const deadline = Date.now() + executorWaitMs;
    const free = () => (rows.some(deps.conflictsWithClaimed) ? undefined : deps.executors.find((candidate) => !candidate.busy));
    let executor = free();
    while (!executor) {
      if (deps.isClosed()) throw new BundlerRpcError(bundlerErrorCodes.internal, 'the bundler is stopping');
      if (Date.now() > deadline)
        throw new BundlerRpcError(
          bundlerErrorCodes.internal,
          `no executor was free of a bundle (or of one in storage conflict with the operation) for ${executorWaitMs / 1000} s: the operation waits in the mempool`,
        );
      await new Promise((resolve) => setTimeout(resolve, executorPollMs));
      executor = free();
    }
    executor.busy = true;
    deps.inFlight(1);
    const releaseStorage = deps.claim(rows);
    try {
      return await deps.bundleWith(executor, rows);
    } finally {
      releaseStorage();
      executor.busy = false;
      deps.inFlight(-1);
    }
  } finally {
    release();
  }
}
