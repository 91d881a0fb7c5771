import type { PooledUpstream } from './pooled-upstream.ts';
import { isRangeTooLargeMessage } from './range-too-large.ts';
import type { ReadNeed } from './read-need.ts';
import { answerError } from './retryable.ts';
import type { ServedTip } from './served-tip.ts';

/** Why an answer is not used: the node lacks the block, the answer fails integrity, or the range is over its cap. */
export type PoolVerdict =
  | undefined
  | { readonly kind: 'missing' | 'corrupt'; readonly detail: string }
  | { readonly kind: 'too_wide'; readonly detail: string };

const nullResult = /"result"\s*:\s*null\s*}$/;
const emptyResult = /"result"\s*:\s*\[\s*\]\s*}$/;

/** Whether the answer ends with `"result":<value>}`, looking only at its last characters (answers run to megabytes). */
function endsWithResult(text: string, pattern: RegExp, last: string): boolean {
  const trimmed = text.trimEnd();
  return trimmed.endsWith(last) && pattern.test(trimmed.slice(-48));
}

/**
 * Whether `text`, answered by `upstream`, may be used for `need`. A `null` for a block at or below the
 * served tip, or for a lookup by hash from a node behind the tip, is a node that lacks the block (a
 * node behind, or one node of a load balancer that is): another node is asked. So is an empty
 * eth_getLogs from a node whose head is below the range. Looks at the answer's last characters only.
 */
export function judgeAnswer(text: string, need: ReadNeed, upstream: PooledUpstream, tip: number): PoolVerdict {
  if (need.logsFrom >= 0 && text.includes('"error"')) {
    const error = answerError(text);
    if (error !== undefined && isRangeTooLargeMessage(error.message)) {
      return { kind: 'too_wide', detail: error.message };
    }
  }
  if (endsWithResult(text, nullResult, 'null}')) {
    if (need.block >= 0 && need.block <= tip) return { kind: 'missing', detail: `block ${need.block} answered null` };
    if ((need.byHash || need.atTip) && upstream.head < tip) return { kind: 'missing', detail: 'null from a node behind the tip' };
  } else if (need.method === 'eth_getLogs' && endsWithResult(text, emptyResult, ']}')) {
    const required = need.block >= 0 ? need.block : tip;
    if (upstream.head < required)
      return { kind: 'missing', detail: `no logs from a node at ${upstream.head}, below ${required}` };
  }
  return need.judge?.(text);
}

const blockNumberResult = /"result"\s*:\s*"0x([0-9a-fA-F]{1,13})"/;

/**
 * An `eth_blockNumber` answer as served: a higher block than the tip raises it; a lower one (a node a
 * block behind the one asked before) is answered as the tip, so the number a client sees never goes back.
 * The node's own head is left to the head tracker: one answer of a load balancer over unsynced nodes
 * says nothing of the next.
 */
export function servedBlockNumber(text: string, tip: ServedTip): string {
  const match = blockNumberResult.exec(text);
  if (match === null) return text;
  const block = Number.parseInt(match[1]!, 16);
  if (block >= tip.value) {
    tip.advance(block);
    return text;
  }
  return `${text.slice(0, match.index)}"result":"0x${tip.value.toString(16)}"${text.slice(match.index + match[0].length)}`;
}
