import { mnemonicToAccount } from 'viem/accounts';
import { pollBlockNumber, readSteadily, sendAndWatch } from './load-clients.ts';
import { createLoadTally, type LoadTally, sample } from './load-tally.ts';
import { createRpcClient, type RpcClient } from './rpc-client.ts';

/** How many clients of each kind, and how often each asks. */
export interface LoadShape {
  /** eth_blockNumber pollers, each every `pollMs`. */
  pollers: number;
  pollMs: number;
  /** Steady readers (eth_blockNumber, latest block, a balance, logs), each every `readMs`. */
  readers: number;
  readMs: number;
  /** Transaction senders, each with its own account, one transfer after the other. */
  senders: number;
}

export const defaultLoad: LoadShape = { pollers: 6, pollMs: 100, readers: 3, readMs: 100, senders: 4 };

/** anvil's test mnemonic: its accounts 1.. send (account 0 is the tests' own elsewhere). */
const mnemonic = 'test test test test test test test test test test test junk';

export interface RunningLoad {
  readonly tally: LoadTally;
  /** Stops every client after its current step, and waits for them (again: the same wait). */
  stop(): Promise<void>;
}

/** Starts the clients against the service at `serviceUrl`; transfers go to `watched` in turn. */
export function startLoad(serviceUrl: string, key: string, watched: readonly string[], shape: LoadShape): RunningLoad {
  const tally = createLoadTally();
  let running = true;
  const isRunning = () => running;
  const clients: RpcClient[] = [];
  const client = (name: string) => {
    const created = createRpcClient(name, serviceUrl, key);
    clients.push(created);
    return created;
  };
  const loops: Promise<void>[] = [];
  // A client that throws stops, and says why in the report (its answers so far still count).
  const guard = (loop: Promise<void>) =>
    loops.push(
      loop.catch((error: unknown) => {
        tally.errors++;
        sample(tally, 'errors', `a client stopped: ${(error as Error).message}`);
      }),
    );
  for (let i = 0; i < shape.pollers; i++) guard(pollBlockNumber(client(`poller ${i + 1}`), tally, isRunning, shape.pollMs));
  for (let i = 0; i < shape.readers; i++)
    guard(
      readSteadily(client(`reader ${i + 1}`), tally, isRunning, {
        intervalMs: shape.readMs,
        address: watched[i % watched.length]!,
      }),
    );
  for (let i = 0; i < shape.senders; i++) {
    const options = {
      account: mnemonicToAccount(mnemonic, { addressIndex: i + 1 }),
      to: watched[i % watched.length]!,
      chainId: 31337,
      pollMs: 200,
      receiptWaitMs: 30_000,
    };
    guard(sendAndWatch(client(`sender ${i + 1}`), tally, isRunning, options));
  }
  let stopped: Promise<void> | undefined;
  return {
    tally,
    stop() {
      running = false;
      stopped ??= Promise.all(loops).then(() => Promise.all(clients.map((each) => each.close())).then(() => undefined));
      return stopped;
    },
  };
}
