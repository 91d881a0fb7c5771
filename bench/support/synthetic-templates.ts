// Rendering 1,000 logs a block from scratch held the synthetic node to ~23 blocks/s on this machine,
// below what the indexer must show. Blocks are rendered once per template instead, with markers where
// the block's own values go; a block is its template's pieces joined with them (a copy, no encoding).
import { type BlockShape, blockHash, makeBlock } from './synthetic-blocks.ts';

/** Distinct block contents cycled through: enough that consecutive blocks differ. */
const templateCount = 48;
/** A block number that cannot occur: its hex marks where each block's values go. */
const markerNumber = 0xfedcba987654;

interface Pieces {
  /** Text between the markers. */
  text: string[];
  /** Which value goes after text[i]. */
  slots: Slot[];
}

type Slot = 'hash' | 'parent' | 'number' | 'txNumber' | 'timestamp';

export function createBlockTemplates(shape: BlockShape) {
  const markerTimestamp = 0xabcdef0123;
  const markers: [string, Slot][] = [
    [blockHash(markerNumber), 'hash'],
    [blockHash(markerNumber - 1), 'parent'],
    [`"0x${markerNumber.toString(16)}"`, 'number'],
    [markerNumber.toString(16).padStart(14, '0'), 'txNumber'],
    [`"0x${markerTimestamp.toString(16)}"`, 'timestamp'],
  ];
  const split = (text: string): Pieces => {
    const pattern = new RegExp(markers.map(([marker]) => marker.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
    const pieces: Pieces = { text: [], slots: [] };
    let last = 0;
    for (const match of text.matchAll(pattern)) {
      pieces.text.push(text.slice(last, match.index));
      pieces.slots.push(markers.find(([marker]) => marker === match[0])![1]);
      last = match.index + match[0].length;
    }
    pieces.text.push(text.slice(last));
    return pieces;
  };
  const templates = Array.from({ length: templateCount }, (_, index) => {
    // Each template's content comes from a different seed; its markers from the one marker number.
    const made = makeBlock(markerNumber, shape, markerTimestamp, index);
    const cut = made.block.indexOf(',"transactions":[');
    const hashes = Array.from(
      { length: shape.transactions },
      (_, i) => `"0x7e${markerNumber.toString(16).padStart(14, '0')}${i.toString(16).padStart(48, '0')}"`,
    );
    return {
      block: split(made.block),
      receipts: split(made.receipts),
      header: split(`${made.block.slice(0, cut)},"transactions":[${hashes.join(',')}]}`),
    };
  });
  const join = (pieces: Pieces, values: Record<Slot, string>) => {
    let out = pieces.text[0]!;
    for (let index = 0; index < pieces.slots.length; index++) out += values[pieces.slots[index]!] + pieces.text[index + 1]!;
    return out;
  };
  return {
    render(number: number, timestampS: number) {
      const template = templates[number % templateCount]!;
      const values: Record<Slot, string> = {
        hash: blockHash(number),
        parent: number === 0 ? `0x${'0'.repeat(64)}` : blockHash(number - 1),
        number: `"0x${number.toString(16)}"`,
        txNumber: number.toString(16).padStart(14, '0'),
        timestamp: `"0x${timestampS.toString(16)}"`,
      };
      return {
        block: join(template.block, values),
        receipts: join(template.receipts, values),
        header: join(template.header, values),
      };
    },
  };
}
