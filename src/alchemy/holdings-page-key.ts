import { invalidRequest } from '../core/errors.ts';

/** `alchemy_getTokenBalances`' page key: the page's last contract and the query's fingerprint, base64url JSON. */
export function encodeHoldingsPageKey(lastContract: string, fingerprint: string): string {
  return Buffer.from(JSON.stringify([lastContract, fingerprint])).toString('base64url');
}

/** The last contract of the previous page; -32602 naming `pageKey` when the key is malformed or another query's. */
export function decodeHoldingsPageKey(text: string, fingerprint: string): string {
  let fields: unknown;
  try {
    fields =
      text.length <= 256 && /^[A-Za-z0-9_-]+$/.test(text)
        ? JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
        : undefined;
  } catch {
    fields = undefined;
  }
  const [contract, keyFingerprint] = Array.isArray(fields) && fields.length === 2 ? fields : [];
  if (typeof contract !== 'string' || !/^0x[0-9a-f]{40}$/.test(contract) || typeof keyFingerprint !== 'string') {
    throw invalidRequest('pageKey', 'is not a page key this API gave (pass it back unchanged)');
  }
  if (keyFingerprint !== fingerprint) {
    throw invalidRequest('pageKey', 'belongs to another query: page with the same address the page key came from');
  }
  return contract;
}
