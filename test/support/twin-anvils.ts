import { pino } from 'pino';
import { type Devnet, startDevnet } from '../../src/chains/devnet.ts';

export type TwinName = 'a' | 'b';

export interface TwinAnvilsOptions {
  /** Default 31337. */
  chainId?: number;
  /** The genesis block's timestamp in seconds. Default: now. */
  genesisTimestamp?: number;
  /** Seconds between the timestamps of successive blocks. Default 2 (Base's block time). */
  blockTimeS?: number;
}

/**
 * Two anvils with the same genesis that mine only when told, with explicit timestamps, so their blocks are
 * byte-identical: one of them can be genuinely behind (it lacks blocks) and later catch up to the same chain.
 */
export interface TwinAnvils {
  readonly a: Devnet;
  readonly b: Devnet;
  readonly genesisTimestamp: number;
  /** The twin's head block number. */
  height(name: TwinName): number;
  /** To every twin that is caught up, in call order; a twin behind gets it when it catches up. Returns the hash. */
  sendRawTransaction(raw: string): Promise<string>;
  /** One block on both (a twin behind catches up first). Throws if their heads' hashes differ. */
  mine(): Promise<void>;
  /** One block on this twin only (after catching it up); the other falls one block behind. */
  mineOnly(name: TwinName): Promise<void>;
  /** Mines on this twin the blocks it lacks, same transactions and timestamps. Throws if it ends on another hash. */
  catchUp(name: TwinName): Promise<void>;
  stop(): Promise<void>;
}

interface Twin {
  devnet: Devnet;
  /** Blocks mined on it (its head number). */
  mined: number;
  /** Raw transactions sent to it, a prefix of `raws`. */
  delivered: number;
}

interface History {
  /** Block n + 1: its timestamp, and how many raw transactions had been sent when it was mined. */
  blocks: { timestamp: number; rawsSent: number }[];
  raws: string[];
}

export async function startTwinAnvils(options: TwinAnvilsOptions = {}): Promise<TwinAnvils> {
  const genesisTimestamp = options.genesisTimestamp ?? Math.floor(Date.now() / 1000);
  const blockTimeS = options.blockTimeS ?? 2;
  const [a, b] = await startBoth(options.chainId, genesisTimestamp);
  const twins: Record<TwinName, Twin> = { a: { devnet: a, mined: 0, delivered: 0 }, b: { devnet: b, mined: 0, delivered: 0 } };
  const history: History = { blocks: [], raws: [] };
  let queue: Promise<unknown> = Promise.resolve();
  // One operation at a time: the order of sends and mines is what keeps the twins identical.
  const serialized = <T>(operation: () => Promise<T>): Promise<T> => {
    const result = queue.then(operation);
    queue = result.catch(() => {});
    return result;
  };
  const mineNext = async (names: TwinName[]) => {
    const timestamp = genesisTimestamp + (history.blocks.length + 1) * blockTimeS;
    for (const name of names) await replay(twins[name], history);
    history.blocks.push({ timestamp, rawsSent: history.raws.length });
    for (const name of names) await mineOn(twins[name], timestamp);
  };

  return {
    a,
    b,
    genesisTimestamp,
    height: (name) => twins[name].mined,
    sendRawTransaction: (raw) => serialized(() => sendToCurrent(Object.values(twins), history, raw)),
    mine: () => serialized(() => mineNext(['a', 'b']).then(() => assertSameHead(twins.a, twins.b))),
    mineOnly: (name) => serialized(() => mineNext([name])),
    catchUp: (name) =>
      serialized(async () => {
        await replay(twins[name], history);
        await assertSameHead(twins[name], twins[name === 'a' ? 'b' : 'a']);
      }),
    stop: () => serialized(() => Promise.all([a.stop(), b.stop()]).then(() => undefined)),
  };
}

async function startBoth(chainId: number | undefined, genesisTimestamp: number): Promise<[Devnet, Devnet]> {
  const start = () =>
    startDevnet({
      chainId,
      logger: pino({ level: 'silent' }),
      extraArgs: ['--no-mining', '--timestamp', String(genesisTimestamp)],
    });
  const started = await Promise.allSettled([start(), start()]);
  const running = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  if (running.length === 2) return [running[0]!, running[1]!];
  await Promise.all(running.map((devnet) => devnet.stop()));
  throw (started.find((result) => result.status === 'rejected') as PromiseRejectedResult).reason;
}

async function sendToCurrent(twins: Twin[], history: History, raw: string): Promise<string> {
  const current = twins.filter((twin) => twin.mined === history.blocks.length);
  const hashes: string[] = [];
  for (const twin of current) {
    try {
      hashes.push(await rpc<string>(twin.devnet.url, 'eth_sendRawTransaction', [raw]));
    } catch (error) {
      if (hashes.length === 0) throw error;
      throw new Error(`twin anvils diverged: one accepted the transaction, the other refused it (${String(error)})`);
    }
  }
  history.raws.push(raw);
  for (const twin of current) twin.delivered = history.raws.length;
  return hashes[0]!;
}

/** Mines on `twin` every block it lacks, each with the transactions the others had when they mined it. */
async function replay(twin: Twin, history: History): Promise<void> {
  for (const block of history.blocks.slice(twin.mined)) {
    await deliver(twin, history, block.rawsSent);
    await mineOn(twin, block.timestamp);
  }
  await deliver(twin, history, history.raws.length);
}

async function deliver(twin: Twin, history: History, upTo: number): Promise<void> {
  for (const raw of history.raws.slice(twin.delivered, upTo)) await rpc(twin.devnet.url, 'eth_sendRawTransaction', [raw]);
  twin.delivered = Math.max(twin.delivered, upTo);
}

async function mineOn(twin: Twin, timestamp: number): Promise<void> {
  await rpc(twin.devnet.url, 'evm_mine', [timestamp]);
  twin.mined++;
}

async function assertSameHead(one: Twin, other: Twin): Promise<void> {
  const height = `0x${one.mined.toString(16)}`;
  const [mine, theirs] = await Promise.all(
    [one, other].map((twin) => rpc<{ hash: string } | null>(twin.devnet.url, 'eth_getBlockByNumber', [height, false])),
  );
  if (mine?.hash !== theirs?.hash)
    throw new Error(`twin anvils diverged at block ${one.mined}: ${mine?.hash} != ${theirs?.hash}`);
}

async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}
