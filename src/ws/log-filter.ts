/**
 * The `logs` subscription filter, with eth_getLogs semantics: `address` is one address or a list
 * (any of them); `topics[i]` is null (anything), a topic, or a list of topics (any of them). A log
 * with fewer topics than the filter lists never matches (as in geth).
 */
export interface LogFilter {
  /** Lower-case addresses; undefined = any. */
  readonly addresses?: ReadonlySet<string>;
  /** Per position: null = any, else the lower-case topics accepted there. */
  readonly topics: readonly (ReadonlySet<string> | null)[];
}

export interface LogLike {
  address: string;
  topics: readonly string[];
}

const addressPattern = /^0x[0-9a-fA-F]{40}$/;
const topicPattern = /^0x[0-9a-fA-F]{64}$/;
const maxTopics = 4;

/** Parses the second `eth_subscribe` parameter of a logs subscription; throws a message naming the problem. */
export function parseLogFilter(value: unknown): LogFilter {
  if (value === undefined || value === null) return { topics: [] };
  if (typeof value !== 'object' || Array.isArray(value))
    throw new TypeError('the logs filter must be an object {address?, topics?}');
  const { address, topics, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new TypeError(`unknown logs filter key '${unknown[0]}': expected address and topics`);
  return { addresses: parseAddresses(address), topics: parseTopics(topics) };
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
  if (filter.topics.length > log.topics.length) return false;
  for (let i = 0; i < filter.topics.length; i++) {
    const accepted = filter.topics[i];
    if (accepted && !accepted.has(log.topics[i]!.toLowerCase())) return false;
  }
  return true;
}
