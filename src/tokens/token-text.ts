import { decodeAbiParameters, type Hex, hexToBytes } from 'viem';

/** Names and symbols longer than this are cut: a hostile token must not bloat every answer. */
export const maxTokenTextLength = 128;

const utf8 = new TextDecoder('utf-8', { fatal: false });
// Control characters (NUL padding of bytes32 values among them) never belong in a name.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
const controlCharacters = /[\u0000-\u001f\u007f]/g;

/**
 * Decodes what `name()` or `symbol()` returned: an ABI `string`, or a `bytes32` as old tokens
 * (MKR, SAI) return it. `undefined` when it is neither.
 */
export function decodeTokenText(data: Hex): string | undefined {
  const byteLength = (data.length - 2) / 2;
  if (byteLength === 32) {
    return clean(utf8.decode(hexToBytes(data)));
  }
  if (byteLength < 64) return undefined;
  try {
    const [text] = decodeAbiParameters([{ type: 'string' }], data);
    return clean(text);
  } catch {
    return undefined;
  }
}

function clean(text: string): string {
  return text.replace(controlCharacters, '').trim().slice(0, maxTokenTextLength);
}

/** The first 32-byte word of a call's answer as an unsigned integer; `undefined` when the answer is shorter. */
export function decodeWord(data: Hex): bigint | undefined {
  if (data.length < 66) return undefined;
  return BigInt(data.slice(0, 66));
}
