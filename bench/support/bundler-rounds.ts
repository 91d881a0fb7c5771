// The measured rounds of bench/bundler.ts: fresh SimpleAccounts on EntryPoint v0.7 and v0.8 per bundler
// (ETH by anvil_setBalance), then rounds of one op at a time. Each round takes one account of each
// version per bundler and sends its deploy op, then its plain op: v0.7 deploys, v0.8 deploys, v0.7
// plain ops, v0.8 plain ops, each across the bundlers in an order that rotates by round. Every op waits
// a random 0-1 s first (so sends fall anywhere in the block interval). A measured Blockyard op's send
// path is then replayed (bench/support/bundler-send-replay.ts) after a random 0-1 s, and that pause is
// the next op's: it follows the replay at once (its send still at a random point of a block interval;
// with v0.8 ops beside v0.7 this keeps twice the ops within the run's deadline).
import { setTimeout as sleep } from 'node:timers/promises';
import { type Address, type PublicClient, parseEther, toHex } from 'viem';
import { anvilCall } from './anvil-rpc.ts';
import {
  type BenchAccount,
  type BenchAccountV08,
  type BundlerTarget,
  bundlerCall,
  newAccount,
  newAccountV08,
  type OpKind,
  type OpSample,
  type OpVersion,
  opVersions,
  runOp,
} from './bundler-ops.ts';
import { replaySend, type SendReplay } from './bundler-send-replay.ts';
import { peer, subject } from './bundler-verdicts.ts';

type AnyAccount = BenchAccount | BenchAccountV08;

/** Per bundler, `count` undeployed accounts of each version, each given 0.05 ETH. */
export async function prepareAccounts(
  targets: readonly BundlerTarget[],
  client: PublicClient,
  anvilUrl: string,
  count: number,
): Promise<Map<string, Record<OpVersion, AnyAccount[]>>> {
  const accounts = new Map<string, Record<OpVersion, AnyAccount[]>>();
  for (const target of targets) {
    const lists: Record<OpVersion, AnyAccount[]> = { '0.7': [], '0.8': [] };
    for (let index = 0; index < count; index++) {
      lists['0.7'].push(await newAccount(client));
      lists['0.8'].push(await newAccountV08(client));
    }
    for (const account of [...lists['0.7'], ...lists['0.8']])
      await anvilCall(anvilUrl, 'anvil_setBalance', [account.address, toHex(parseEther('0.05'))]);
    accounts.set(target.name, lists);
  }
  return accounts;
}

/** The floor under every call: eth_chainId (a constant answer) through each bundler's HTTP stack, 30 times each. */
export async function measureFloor(targets: readonly BundlerTarget[]): Promise<Map<string, number[]>> {
  const floor = new Map<string, number[]>(targets.map((target) => [target.name, []]));
  for (let index = 0; index < 30; index++) {
    for (const target of targets) {
      const from = performance.now();
      await bundlerCall(target, 'eth_chainId', []);
      floor.get(target.name)!.push(performance.now() - from);
    }
  }
  return floor;
}

export interface RoundsResult {
  samples: OpSample[];
  replays: Map<string, SendReplay>;
  /** One line per failed op, starting with its bundler's name. */
  failures: string[];
  /** Measured rounds run (of opsPerKind). */
  rounds: number;
  cutShort: boolean;
}

export async function runRounds(options: {
  targets: readonly BundlerTarget[];
  accounts: ReadonlyMap<string, Record<OpVersion, AnyAccount[]>>;
  client: PublicClient;
  recipient: Address;
  warmupAccounts: number;
  opsPerKind: number;
  receiptPollMs: number;
  receiptTimeoutMs: number;
  /** Failed ops allowed per bundler before the run stops (throws). */
  maxFailures: number;
  /** Whether the time budget of the rounds is spent (checked before each round). */
  outOfTime: () => boolean;
  log: (line: string) => void;
}): Promise<RoundsResult> {
  const { targets, client, log } = options;
  const samples: OpSample[] = [];
  const replays = new Map<string, SendReplay>();
  const failures: string[] = [];
  const failuresOf = (name: string) => failures.filter((line) => line.startsWith(`${name}:`)).length;
  let value = 1_000n;
  /** Whether the last op's replay came after a random pause, which then stands for this op's. */
  let paused = false;
  /** One op; a failure is recorded and the run goes on (a deploy that failed skips its account's plain op). */
  const one = async (target: BundlerTarget, account: AnyAccount, kind: OpKind, measured: boolean): Promise<boolean> => {
    if (!paused) await sleep(Math.random() * 1_000);
    paused = false;
    try {
      const sample = await runOp({
        target,
        client,
        account,
        kind,
        recipient: options.recipient,
        value: value++,
        receiptPollMs: options.receiptPollMs,
        receiptTimeoutMs: options.receiptTimeoutMs,
      });
      if (measured) {
        samples.push(sample);
        // A Blockyard's send path replayed call by call, like the send at a random point of a block
        // interval, with the same processes about (head poller, the other bundlers idle between their ops).
        if (target.name !== peer) {
          await sleep(Math.random() * 1_000);
          paused = true;
          const replay = await replaySend(client, sample, target.name === subject).catch((error: unknown) => {
            log(`no replay of ${sample.bundleTx}: ${(error as Error).message}`);
            return undefined;
          });
          if (replay) replays.set(sample.bundleTx, replay);
        }
      }
      return true;
    } catch (error) {
      const version = account.entryPoint.version;
      failures.push(`${target.name}: v${version} ${kind} op from ${account.address}: ${(error as Error).message}`);
      log(`failed: ${failures.at(-1)}`);
      if (failuresOf(target.name) >= options.maxFailures)
        throw new Error(`${target.name}: ${options.maxFailures} ops failed; stopping`);
      return false;
    }
  };

  const deployed = new Set<string>();
  let rounds = 0;
  let cutShort = false;
  const total = options.warmupAccounts + options.opsPerKind;
  for (let round = 0; round < total; round++) {
    if (options.outOfTime()) {
      cutShort = true;
      log(`time budget spent after ${rounds} measured rounds: stopping the rounds`);
      break;
    }
    const measured = round >= options.warmupAccounts;
    // Rotate which bundler goes first, so none always follows another's bundle.
    const order = targets.map((_, index) => targets[(index + round) % targets.length]!);
    for (const kind of ['deploy', 'plain'] as const) {
      for (const version of opVersions) {
        for (const target of order) {
          const account = options.accounts.get(target.name)![version][round]!;
          if (kind === 'plain' && !deployed.has(account.address)) continue;
          if ((await one(target, account, kind, measured)) && kind === 'deploy') deployed.add(account.address);
        }
      }
    }
    if (measured) rounds++;
    if (round % 5 === 4) log(`round ${round + 1} of ${total} done (${samples.length} ops measured)`);
  }
  return { samples, replays, failures, rounds, cutShort };
}
