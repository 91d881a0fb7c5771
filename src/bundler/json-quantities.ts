const quantity = (value: bigint) => `0x${value.toString(16)}`;

/** JSON text with bigints as 0x quantities (viem's receipts and logs carry bigints). */
export function toQuantityJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner) => (typeof inner === 'bigint' ? quantity(inner) : inner));
}

/** The value as it comes back from JSON, bigints as 0x quantities. */
export function toJsonSafe<T>(value: T): unknown {
  return JSON.parse(toQuantityJson(value));
}
