/**
 * Counts of the NFT index (an owner's tokens, a collection's ids and owners) read at most this many
 * index entries: exact below it, this number at or above it (docs/limits.md#data-queries). An address
 * that airdrops reached with a million tokens then costs one bounded read, not a scan of the million.
 */
export const countCap = 100_000;
