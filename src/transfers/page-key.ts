import { createHash } from 'node:crypto';
import { invalidRequest } from '../core/errors.ts';

/**
 * Where a transfer sorts: block, then its place in the block (`position`: -2 for the transaction's
 * own value, -1 for a call inside it, the log index for a token event), then the transaction hash,
 * the call's trace path and the place inside an ERC-1155 batch. Unique per transfer, so keyset paging
 * never repeats or skips one.
 */
export interface TransferCursor {
  readonly block: number;
  readonly position: number;
  readonly txHash: string;
  readonly tracePath: string;
  readonly batchIndex: number;
}

export const nativePosition = -2;
export const internalPosition = -1;

/** The first 16 hex digits of SHA-256 over the query's canonical JSON: ties a page key to its query. */
export function fingerprintOf(query: unknown): string {
  return createHash('sha256').update(JSON.stringify(query)).digest('hex').slice(0, 16);
}

/** An opaque page key: the last item's sort key and the query's fingerprint, base64url JSON. */
export function encodePageKey(cursor: TransferCursor, fingerprint: string): string {
  const fields = [cursor.block, cursor.position, cursor.txHash, cursor.tracePath, cursor.batchIndex, fingerprint];
  return Buffer.from(JSON.stringify(fields)).toString('base64url');
}

const maxPageKeyLength = 512;
const isWhole = (value: unknown, min: number): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= min;

/** The cursor of a page key given back by the client; 400 naming `param` if it is malformed or another query's. */
export function decodePageKey(text: string, fingerprint: string, param = 'page_key'): TransferCursor {
  const fields = parseFields(text);
  if (!fields) throw invalidRequest(param, 'is not a page key this API gave (pass it back unchanged)');
  const [block, position, txHash, tracePath, batchIndex, keyFingerprint] = fields;
  if (keyFingerprint !== fingerprint) {
    throw invalidRequest(param, 'belongs to another query: page with the same parameters the page key came from');
  }
  return { block, position, txHash, tracePath, batchIndex } as TransferCursor;
}

function parseFields(text: string): unknown[] | undefined {
  if (text.length > maxPageKeyLength || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(fields) || fields.length !== 6) return undefined;
  const [block, position, txHash, tracePath, batchIndex, keyFingerprint] = fields;
  const valid =
    isWhole(block, 0) &&
    isWhole(position, nativePosition) &&
    typeof txHash === 'string' &&
    /^0x[0-9a-f]{64}$/.test(txHash) &&
    typeof tracePath === 'string' &&
    /^[0-9.]{0,256}$/.test(tracePath) &&
    isWhole(batchIndex, 0) &&
    typeof keyFingerprint === 'string';
  return valid ? fields : undefined;
}
