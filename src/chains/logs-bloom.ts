import { hexToBytes, keccak256 } from 'viem';

const bloomHex = /^0x[0-9a-fA-F]{512}$/;
const itemHex = /^0x(?:[0-9a-fA-F]{2})+$/;

/**
 * Whether a block whose `logsBloom` is `bloom` may hold a log matching `address` and `topics` (the
 * eth_getLogs filter's, as the client sent them). A bloom says "maybe" or "certainly not"; a value
 * this cannot read counts as "maybe".
 *
 * @example bloomMayMatch(block.logsBloom, '0xab…', [transferTopic]) // false: no such log in the block
 */
export function bloomMayMatch(bloom: string, address: unknown, topics: unknown): boolean {
  if (!bloomHex.test(bloom)) return true;
  const bits = hexToBytes(bloom as `0x${string}`);
  if (!anyInBloom(bits, address)) return false;
  if (!Array.isArray(topics)) return true;
  return topics.every((position) => anyInBloom(bits, position));
}

/** `wanted`: null/absent (anything), one hex value or a list of alternatives. */
function anyInBloom(bits: Uint8Array, wanted: unknown): boolean {
  if (wanted === null || wanted === undefined) return true;
  const alternatives = Array.isArray(wanted) ? wanted : [wanted];
  if (alternatives.length === 0 || alternatives.includes(null)) return true;
  return alternatives.some((item) => typeof item !== 'string' || !itemHex.test(item) || inBloom(bits, item));
}

/** The 2048-bit bloom's three bits of keccak256(item) (the yellow paper's M3:2048). */
function inBloom(bits: Uint8Array, item: string): boolean {
  const hash = hexToBytes(keccak256(item.toLowerCase() as `0x${string}`));
  for (let i = 0; i < 6; i += 2) {
    const bit = ((hash[i]! << 8) | hash[i + 1]!) & 0x7ff;
    if ((bits[255 - (bit >> 3)]! & (1 << (bit & 7))) === 0) return false;
  }
  return true;
}
