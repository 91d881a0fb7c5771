import { bloomMayMatch } from './logs-bloom.ts';
import type { AnswerVerdict, ReadNeed } from './read-need.ts';

/** How many blocks below the tip an eth_getLogs answer is checked for: a load balancer's nodes lag each other by a few. */
export const logsTailBlocks = 8;
/** Blooms remembered per network (a header is read once per block, not per request). */
const rememberedBlooms = 64;

const lastBlockNumber = /"blockNumber"\s*:\s*"0x([0-9a-fA-F]{1,13})"/y;
/** A result that is a list ends so; an error object ends with `}}`. */
const listAnswerEnd = /\]\s*}\s*$/;

/** The `logsBloom` of block `number` (undefined: no node has it, or it could not be read). */
export type ReadBloom = (number: number) => Promise<string | undefined>;

/**
 * A check of eth_getLogs answers near the tip: one node of a load balancer that is a few blocks behind
 * its twin answers the range only up to its own head, a shorter list with no sign of it. For each block
 * of the range within `logsTailBlocks` of the tip (below or above it) that comes after the answer's last log, the
 * block's bloom is read (once per block): a bloom that may hold a matching log means the node did not
 * look at that block, and another upstream is asked (a bloom's false positive costs that one call).
 */
export function createLogsTailCheck(readBloom: ReadBloom) {
  const blooms = new Map<number, Promise<string | undefined>>();
  const bloomOf = (number: number) => {
    let bloom = blooms.get(number);
    if (bloom === undefined) {
      bloom = readBloom(number).catch(() => undefined);
      blooms.set(number, bloom);
      // A block without a bloom yet (no node had it) is read again next time.
      void bloom.then((value) => value === undefined && blooms.get(number) === bloom && blooms.delete(number));
      if (blooms.size > rememberedBlooms) blooms.delete(Math.min(...blooms.keys()));
    }
    return bloom;
  };
  return async (text: string, need: ReadNeed, tip: number): Promise<AnswerVerdict> => {
    const filter = need.logsFilter;
    if (filter === undefined || tip < 0 || !listAnswerEnd.test(text.slice(-16))) return undefined;
    // A range may end a little above this pool's tip (the cache's head watch polls apart from it); not far.
    const to = Math.min(need.block >= 0 ? need.block : tip, tip + logsTailBlocks);
    // Only blocks near the tip: a node of a load balancer is a few blocks behind, not thousands.
    const from = Math.max(need.logsFrom >= 0 ? need.logsFrom : tip, tip - logsTailBlocks + 1, lastLogBlock(text) + 1);
    const blocks: number[] = [];
    for (let number = from; number <= to; number++) blocks.push(number);
    const found = await Promise.all(blocks.map(bloomOf));
    const index = found.findIndex((bloom) => bloom !== undefined && bloomMayMatch(bloom, filter.address, filter.topics));
    if (index < 0) return undefined;
    return { kind: 'missing', detail: `no logs for block ${blocks[index]}, whose bloom may hold some: a node behind it` };
  };
}

/** The block of the answer's last log (its objects end the text), or -1 for none. */
function lastLogBlock(text: string): number {
  const at = text.lastIndexOf('"blockNumber"');
  if (at < 0) return -1;
  lastBlockNumber.lastIndex = at;
  const match = lastBlockNumber.exec(text);
  return match === null ? -1 : Number.parseInt(match[1]!, 16);
}
