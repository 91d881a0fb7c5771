/** A small in-process cache with per-entry lifetimes and a size bound (oldest entries go first). */
export function createTtlCache<V>(maxEntries: number, now: () => number = Date.now) {
  const entries = new Map<string, { value: V; expiresAt: number }>();
  return {
    get(key: string): V | undefined {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt <= now()) {
        entries.delete(key);
        return undefined;
      }
      return entry.value;
    },
    set(key: string, value: V, ttlMs: number): void {
      entries.delete(key);
      entries.set(key, { value, expiresAt: now() + ttlMs });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    },
    delete(key: string): void {
      entries.delete(key);
    },
  };
}
