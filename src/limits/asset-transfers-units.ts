/** Rows whose reading one compute unit pays for, past the call's base price. */
const rowsPerUnit = 100;
const baseUnits = 20;
/** No call costs more (src/limits/compute-units.ts): the free plan's 200 CU/s can make every call. */
const maxUnits = 200;
/** As src/transfers/query.ts: contracts without an address are read a branch each up to this many. */
const contractBranches = 10;
const tablesOfCategory: Record<string, string> = {
  external: 'native',
  internal: 'internal',
  erc20: 'token',
  erc721: 'nft',
  erc1155: 'nft',
  specialnft: 'nft',
};

/**
 * alchemy_getAssetTransfers' compute units, following the rows the call may read: 20, plus 1 per 100
 * of (maxCount x transfer tables its categories read x branches: each contract of a short list
 * without an address is read on its own). The default call (one address, every category, 1,000
 * items) costs 60; ten contracts of ERC-20 transfers at 1,000 items, 120 (Alchemy's flat price); 200 at most.
 * Params it cannot read cost the base: the call is refused by its own validation.
 */
export function assetTransfersComputeUnits(params: unknown): number {
  const p = Array.isArray(params) ? params[0] : undefined;
  if (typeof p !== 'object' || p === null) return baseUnits;
  const request = p as Record<string, unknown>;
  const categories = Array.isArray(request.category) ? request.category : [];
  const tables = new Set(categories.map((name) => tablesOfCategory[String(name)]).filter(Boolean)).size || 1;
  const maxCount = countOf(request.maxCount);
  const hasAddress = request.fromAddress !== undefined || request.toAddress !== undefined;
  const contracts = Array.isArray(request.contractAddresses) ? request.contractAddresses.length : 0;
  const branches = !hasAddress && contracts > 0 && contracts <= contractBranches ? contracts : 1;
  return Math.min(maxUnits, baseUnits + Math.ceil((maxCount * tables * branches) / rowsPerUnit));
}

/** maxCount as Alchemy takes it (hex or number), 1,000 when absent or unreadable, at most 1,000. */
function countOf(value: unknown): number {
  const parsed = typeof value === 'string' && /^0x[0-9a-f]+$/i.test(value) ? Number.parseInt(value, 16) : Number(value);
  if (value === undefined || !Number.isFinite(parsed) || parsed <= 0) return 1000;
  return Math.min(1000, Math.trunc(parsed));
}
