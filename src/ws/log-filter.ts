import { parseBlockNumber } from '../rpc/cache/cache-policy.ts';

/**
 * The `logs` subscription filter, with eth_getLogs semantics: `address` is one address or a list
 * (any of them); `topics[i]` is null (anything), a topic, or a list of topics (any of them). A log
 * with fewer topics than the filter lists never matches (as in geth). `fromBlock` and `toBlock` are
 * taken as geth, reth and anvil take them (Foundry's `cast logs --subscribe` sends `earliest` and
 * `latest`): the subscription still sends only the logs of blocks that arrive after it, and a block
 * number bounds the blocks whose logs it sends; a tag bounds nothing.
 */
export interface LogFilter {
  /** Lower-case addresses; undefined = any. */
  readonly addresses?: ReadonlySet<string>;
  /** Per position: null = any, else the lower-case topics accepted there. */
  readonly topics: readonly (ReadonlySet<string> | null)[];
  /** The lowest block whose logs are sent, when `fromBlock` is a number. */
  readonly fromBlock?: number;
  /** The highest block whose logs are sent, when `toBlock` is a number. */
  readonly toBlock?: number;
}

export interface LogLike {
  address: string;
  topics: readonly string[];
  /** Hex, as the node answers it. */
  blockNumber?: unknown;
}

const addressPattern = /^0x[0-9a-fA-F]{40}$/;
const topicPattern = /^0x[0-9a-fA-F]{64}$/;
const maxTopics = 4;
const blockTags = new Set(['earliest', 'latest', 'pending', 'safe', 'finalized']);

/** Parses the second `eth_subscribe` parameter of a logs subscription; throws a message naming the problem. */
export function parseLogFilter(value: unknown): LogFilter {
  if (value === undefined || value === null) return { topics: [] };
  if (typeof value !== 'object' || Array.isArray(value))
    throw new TypeError('the logs filter must be an object {address?, topics?, fromBlock?, toBlock?}');
  const { address, topics, fromBlock, toBlock, ...rest } = value as Record<string, unknown>;
  if ('blockHash' in rest)
    throw new TypeError(
      "invalid logs filter 'blockHash': a subscription sends the logs of blocks still to come; read one block's logs with eth_getLogs",
    );
  const unknown = Object.keys(rest);
  if (unknown.length > 0)
    throw new TypeError(`unknown logs filter key '${unknown[0]}': expected address, topics, fromBlock and toBlock`);
  const from = parseBound(fromBlock, 'fromBlock');
  const to = parseBound(toBlock, 'toBlock');
  if (from !== undefined && to !== undefined && from > to)
    throw new TypeError(`invalid logs filter: fromBlock ${fromBlock} is after toBlock ${toBlock}`);
  return {
    addresses: parseAddresses(address),
    topics: parseTopics(topics),
    ...(from === undefined ? {} : { fromBlock: from }),
    ...(to === undefined ? {} : { toBlock: to }),
  };
}

/** A block number bound, or undefined for none (absent, null or a tag). */
function parseBound(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null || (typeof value === 'string' && blockTags.has(value))) return undefined;
  const number = typeof value === 'string' ? parseBlockNumber(value) : undefined;
  if (number === undefined)
    throw new TypeError(
      `invalid logs filter '${name}': ${JSON.stringify(value)} is not a hex block number or one of ${[...blockTags].join(', ')}`,
    );
  return number;
}

function parseAddresses(value: unknown): ReadonlySet<string> | undefined {
  if (value === undefined || value === null) return undefined;
  const list = Array.isArray(value) ? value : [value];
  if (Array.isArray(value) && value.length === 0) return undefined;
  for (const item of list) {
    if (typeof item !== 'string' || !addressPattern.test(item)) {
      throw new TypeError(`invalid logs filter 'address': ${JSON.stringify(item)} is not a 20-byte hex address`);
    }
  }
  return new Set(list.map((item: string) => item.toLowerCase()));
}

function parseTopics(value: unknown): (ReadonlySet<string> | null)[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new TypeError("invalid logs filter 'topics': must be an array");
  if (value.length > maxTopics) throw new TypeError(`invalid logs filter 'topics': at most ${maxTopics} positions`);
  return value.map((position, index) => {
    if (position === null) return null;
    const options = Array.isArray(position) ? position : [position];
    // A null inside an OR list makes the whole position a wildcard; so does an empty list.
    if (options.length === 0 || options.includes(null)) return null;
    for (const topic of options) {
      if (typeof topic !== 'string' || !topicPattern.test(topic)) {
        throw new TypeError(`invalid logs filter 'topics[${index}]': ${JSON.stringify(topic)} is not a 32-byte hex topic`);
      }
    }
    return new Set(options.map((topic: string) => topic.toLowerCase()));
  });
}

/** True when the log passes the filter. */
export function matchesLogFilter(filter: LogFilter, log: LogLike): boolean {
  if (filter.addresses && !filter.addresses.has(log.address.toLowerCase())) return false;
  if ((filter.fromBlock !== undefined || filter.toBlock !== undefined) && !withinBounds(filter, log.blockNumber)) return false;
  if (filter.topics.length > log.topics.length) return false;
  for (let i = 0; i < filter.topics.length; i++) {
    const accepted = filter.topics[i];
    if (accepted && !accepted.has(log.topics[i]!.toLowerCase())) return false;
  }
  return true;
}

function withinBounds(filter: LogFilter, blockNumber: unknown): boolean {
  const block = typeof blockNumber === 'string' ? Number.parseInt(blockNumber, 16) : Number.NaN;
  // A log without its block (a pending one) cannot be placed: a bounded filter leaves it out.
  if (Number.isNaN(block)) return false;
  return (
    (filter.fromBlock === undefined || block >= filter.fromBlock) && (filter.toBlock === undefined || block <= filter.toBlock)
  );
}
