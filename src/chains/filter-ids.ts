import { createHash } from 'node:crypto';

/**
 * Filter ids that name their node. A filter (`eth_newFilter`, `eth_newBlockFilter`,
 * `eth_newPendingTransactionFilter`) lives on the node that created it; any other node answers "filter
 * not found". On a network of several upstreams the id a client gets is the node's own id behind a tag
 * of 8 hex digits naming the node (`0x` + tag + the node's digits), so its later calls go to that node
 * from any process with the same upstream list, after a restart, and behind a load balancer, with no
 * state kept anywhere. The tag's first digit is 8-f: the id stays a hex quantity without a leading zero.
 */
export interface FilterTags<U> {
  /** The id to give the client for the node's `id` (as the node spelled it) created on `upstream`. */
  encode(id: string, upstream: U): string;
  /** The node and its own id behind a tagged id; undefined for an id no upstream of this list tagged. */
  decode(id: string): { upstream: U; id: string } | undefined;
}

const tagDigits = 8;
const taggedIdPattern = /^0x([89a-f][0-9a-f]{7})([0-9a-f]{1,64})$/i;

/** Tags derived from each upstream's URL: the same list gives the same tags in every process. */
export function createFilterTags<U>(upstreams: readonly U[], urlOf: (upstream: U) => string): FilterTags<U> {
  const byTag = new Map<string, U>();
  const tagOf = new Map<U, string>();
  for (const upstream of upstreams) {
    let tag = tagFor(urlOf(upstream), 0);
    for (let salt = 1; byTag.has(tag); salt++) tag = tagFor(urlOf(upstream), salt);
    byTag.set(tag, upstream);
    tagOf.set(upstream, tag);
  }
  return {
    encode(id, upstream) {
      const digits = /^0x([0-9a-f]{1,64})$/i.exec(id)?.[1];
      const tag = tagOf.get(upstream);
      return digits === undefined || tag === undefined ? id : `0x${tag}${digits}`;
    },
    decode(id) {
      const parts = taggedIdPattern.exec(id);
      const upstream = parts ? byTag.get(parts[1]!.toLowerCase()) : undefined;
      return upstream === undefined ? undefined : { upstream, id: `0x${parts![2]}` };
    },
  };
}

function tagFor(url: string, salt: number): string {
  const digest = createHash('sha256').update(`${salt}:${url}`).digest();
  return ((digest.readUInt32BE(0) | 0x8000_0000) >>> 0).toString(16).padStart(tagDigits, '0');
}

/** `body` (one JSON-RPC call) with its first param, the filter id, replaced by `id`. */
export function withFilterParam(body: string, id: string): string {
  const call = JSON.parse(body) as { params: unknown[] };
  return JSON.stringify({ ...call, params: [id, ...call.params.slice(1)] });
}

/** A filter-creating call's answer with its `result` id replaced by `encode(result)`; any other answer unchanged. */
export function withCreatedFilterId(answer: string, encode: (id: string) => string): string {
  const parsed = JSON.parse(answer) as { result?: unknown };
  if (typeof parsed.result !== 'string') return answer;
  return JSON.stringify({ ...parsed, result: encode(parsed.result) });
}
