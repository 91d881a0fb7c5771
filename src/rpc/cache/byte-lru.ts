/** Per-entry bookkeeping (Map slot, entry object, key), counted so that many tiny entries stay bounded too. */
const entryOverheadBytes = 96;

export interface ByteLru<V> {
  get(key: string): V | undefined;
  set(key: string, value: V, bytes: number): void;
  delete(key: string): void;
  readonly entries: number;
  readonly bytes: number;
}

/**
 * A least-recently-used map bounded by an approximate byte size (string length plus an overhead per
 * entry). A Map keeps insertion order, so re-inserting on a hit makes it the most recent.
 *
 * @example const lru = createByteLru<string>(64 * 1024 * 1024); lru.set(key, raw, raw.length);
 */
export function createByteLru<V>(maxBytes: number): ByteLru<V> {
  const map = new Map<string, { value: V; bytes: number; stamp: number }>();
  let bytes = 0;
  /** Counts insertions: an entry with fewer than half the map inserted after it is not near eviction. */
  let clock = 0;

  const remove = (key: string) => {
    const entry = map.get(key);
    if (!entry) return;
    map.delete(key);
    bytes -= entry.bytes;
  };

  return {
    get(key) {
      const entry = map.get(key);
      if (!entry) return undefined;
      // Moving a hot entry to the end on every hit costs a delete and an insert; only entries in the
      // older half move, which keeps eviction in least-recently-used order where it matters.
      if (clock - entry.stamp > map.size / 2) {
        map.delete(key);
        entry.stamp = ++clock;
        map.set(key, entry);
      }
      return entry.value;
    },
    set(key, value, size) {
      remove(key);
      const entryBytes = size + key.length + entryOverheadBytes;
      if (entryBytes > maxBytes) return;
      map.set(key, { value, bytes: entryBytes, stamp: ++clock });
      bytes += entryBytes;
      while (bytes > maxBytes) {
        const oldest = map.keys().next().value as string;
        remove(oldest);
      }
    },
    delete: remove,
    get entries() {
      return map.size;
    },
    get bytes() {
      return bytes;
    },
  };
}
