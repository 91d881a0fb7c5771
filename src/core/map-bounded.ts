/**
 * Runs `work` over `items` with at most `limit` at once, starting them in order, and answers the
 * results in the order of `items`. The first rejection rejects the answer (the other lanes keep going).
 * @example await mapBounded(hashes, 4, (hash) => fetchReceipt(hash))
 */
export async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
