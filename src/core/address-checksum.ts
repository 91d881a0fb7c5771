import { createKeccak } from 'hash-wasm';

/**
 * EIP-55 checksums for answers that carry many addresses (an NFT collection's owners: up to 50,000 a
 * page). viem's `getAddress` hashes with a JavaScript Keccak, about 19 us an address on this machine:
 * nearly a second of the one thread that answers every request for a full page. The same hash in
 * WebAssembly, on bytes changed in place, takes a fraction of it (`npm run bench:address-checksum`,
 * docs/benchmarks.md); the module is compiled once, at import.
 */
const keccak = await createKeccak(256);

const addressShape = /^0x[0-9a-fA-F]{40}$/;
const lowerA = 0x61;
const upperToLower = 0x20;

/**
 * Checksums the 40 lower-case hex digits at `bytes[start..start+40)` in place: a letter becomes upper
 * case where its nibble of the Keccak-256 of the lower-case digits is 8 or more.
 */
function checksumInPlace(bytes: Uint8Array, start: number): void {
  const digits = bytes.subarray(start, start + 40);
  keccak.init();
  keccak.update(digits);
  const hash = keccak.digest('binary');
  for (let i = 0; i < 40; i++) {
    if (digits[i]! < lowerA) continue;
    const nibble = i % 2 === 0 ? hash[i >> 1]! >> 4 : hash[i >> 1]! & 15;
    if (nibble >= 8) digits[i]! -= upperToLower;
  }
}

/** The EIP-55 form of a 20-byte hex address in any case; throws on anything else. */
export function checksumAddress(address: string): string {
  if (!addressShape.test(address)) throw new TypeError(`not a 20-byte hex address: ${address.slice(0, 50)}`);
  const bytes = Buffer.from(address.toLowerCase(), 'latin1');
  checksumInPlace(bytes, 2);
  return bytes.toString('latin1');
}

const quote = 0x22;
const isLowerHexDigit = (byte: number) => (byte >= 0x30 && byte <= 0x39) || (byte >= lowerA && byte <= 0x66);

/**
 * A JSON text with every string that is exactly `0x` and 40 lower-case hex digits checksummed, in one
 * pass over its bytes (no string made per address); other strings are left as they are. For JSON whose
 * strings hold no escaped quote (holders-json.ts: addresses and decimal numbers only).
 */
export function checksumAddressesInJson(json: string): string {
  const bytes = Buffer.from(json, 'utf8');
  let at = bytes.indexOf('"0x');
  while (at !== -1) {
    const start = at + 3;
    let end = start;
    while (end < bytes.length && isLowerHexDigit(bytes[end]!)) end++;
    if (end - start === 40 && bytes[end] === quote) checksumInPlace(bytes, start);
    at = bytes.indexOf('"0x', end);
  }
  return bytes.toString('utf8');
}
