import { setTimeout as sleep } from 'node:timers/promises';
import { UpstreamError } from '../core/upstream-error.ts';
import { callsOf, costOn } from './pick-upstream.ts';
import type { PooledUpstream } from './pooled-upstream.ts';
import type { ReadNeed } from './read-need.ts';
import { answerError, RetryableRpcError, retryableKindOf } from './retryable.ts';

/**
 * A load balancer over nodes that lag one another answers eth_getLogs from whichever node it picks, and
 * a node a block behind answers the range up to its own head: a log short, with no sign of it. So a
 * range that ends near the served tip goes with a witness in the same request (one HTTP request
 * reaches one node): `eth_blockNumber` first, then the call. A node whose head, read before the logs,
 * is below the range's end lacked part of it, and the request is sent again (a balancer's next pick
 * may be another node); after that, another upstream is asked, else the node's answer is the answer.
 */

/** Ranges ending within this many blocks below the served tip are witnessed (deeper, every node has them). */
export const witnessDepth = 8;
/**
 * A range ending up to this many blocks past the served tip needs its end: a node may have it already
 * (behind a balancer whose nodes disagree, the tip trails the best node by a few head polls: 64 blocks
 * is 16 s of a 0.25 s chain). Further ahead, no node has it: the tip is what the node must have reached.
 */
export const witnessAhead = 64;
/** The wait before each re-send of a request whose node lacked the range's end: two at once (a balancer's next pick), one a moment later. */
const resendDelaysMs = [0, 0, 100];
const witnessId = 'blockyard-head-witness';
const witnessCall = `{"jsonrpc":"2.0","id":"${witnessId}","method":"eth_blockNumber","params":[]}`;

/**
 * The block the node must have reached for `need` to be answered whole: a single eth_getLogs whose
 * range ends near `tip` (its end; `latest`, or an end far past the tip, which nodes answer up to
 * their head: the tip itself). -1 when no witness is needed.
 */
export function witnessedBlock(need: ReadNeed, tip: number): number {
  if (need.method !== 'eth_getLogs' || need.methods !== undefined || tip < 0) return -1;
  if (need.atTip) return tip;
  if (need.block < 0 || need.block <= tip - witnessDepth) return -1;
  return need.block <= tip + witnessAhead ? need.block : tip;
}

/** Upstreams that refused the two-call batch: sent the call alone from then on. */
const refusesBatches = new WeakSet<PooledUpstream>();

export interface Witnessing {
  /** The block the node must have reached (witnessedBlock). */
  readonly block: number;
  /**
   * Whether a request whose node lacked it is sent again: the pool's only upstream (whose head reached
   * the tip before), or one whose last head poll had the block. A balancer's next pick may be another node.
   */
  readonly resend: boolean;
  /** Called for each answer of a node that lacked the block. */
  readonly onBehind: () => void;
}

/**
 * `body` (one eth_getLogs call) sent to `target` behind an `eth_blockNumber` witness: the call's own
 * answer once the node's head reached the block. Throws a `behind` RetryableRpcError carrying the last
 * answer when no node did (the pool then asks another upstream, or answers that text).
 */
export async function sendWithHeadWitness(
  target: PooledUpstream,
  body: string,
  need: ReadNeed,
  { block, resend, onBehind }: Witnessing,
): Promise<string> {
  const alone = () => target.send(body, callsOf(need), costOn(target, need));
  if (refusesBatches.has(target)) return alone();
  const cu = costOn(target, need) + target.costOf('eth_blockNumber');
  let answer = '';
  for (const delay of [...(resend ? resendDelaysMs : []), -1]) {
    let text: string;
    try {
      text = await target.send(`[${witnessCall},${body}]`, callsOf(need) + 1, cu);
    } catch (error) {
      // A 4xx page instead of JSON: how some gateways refuse batches.
      if (!(error instanceof UpstreamError && error.reason === 'http_status' && (error.status ?? 500) < 500)) throw error;
      refusesBatches.add(target);
      return alone();
    }
    const witnessed = splitWitnessed(text);
    if (witnessed === undefined) {
      if (/batch/i.test(answerError(text)?.message ?? '')) refusesBatches.add(target);
      return alone();
    }
    const error = answerError(witnessed.answer);
    // An error another node may not give (a rate limit, a node behind) is judged as when the call goes
    // alone; any other (a range too wide, a bad filter) is the answer.
    if (error !== undefined) return retryableKindOf(error) === undefined ? witnessed.answer : alone();
    if (witnessed.head >= block) return witnessed.answer;
    onBehind();
    answer = witnessed.answer;
    if (delay > 0) await sleep(delay);
    else if (delay < 0) break;
  }
  throw new RetryableRpcError(answer, 0, 'behind');
}

const leadingObject = /^\s*\[\s*(\{[^{}]*\})\s*,/;
const trailingObject = /,\s*(\{[^{}]*\})\s*\]\s*$/;

/** The node's head and the call's own answer, out of the two-call batch's answer (in either order); else undefined. */
export function splitWitnessed(text: string): { head: number; answer: string } | undefined {
  const first = leadingObject.exec(text);
  let head = first ? witnessHead(first[1]!) : undefined;
  if (head !== undefined) return answerWith(head, text.slice(first![0].length, text.lastIndexOf(']')));
  // The witness last: only the end of the text is searched (an answer runs to megabytes).
  const tail = text.slice(-200);
  const last = trailingObject.exec(tail);
  head = last ? witnessHead(last[1]!) : undefined;
  if (head === undefined) return undefined;
  return answerWith(head, text.slice(text.indexOf('[') + 1, text.length - tail.length + last!.index));
}

function answerWith(head: number, answer: string): { head: number; answer: string } | undefined {
  const trimmed = answer.trim();
  return trimmed.startsWith('{') && trimmed.endsWith('}') ? { head, answer: trimmed } : undefined;
}

function witnessHead(objectText: string): number | undefined {
  let parsed: { id?: unknown; result?: unknown };
  try {
    parsed = JSON.parse(objectText);
  } catch {
    return undefined;
  }
  if (parsed?.id !== witnessId || typeof parsed.result !== 'string' || !/^0x[0-9a-fA-F]{1,13}$/.test(parsed.result)) {
    return undefined;
  }
  return Number.parseInt(parsed.result, 16);
}
