/** How many block hashes are compared per round trip while walking back. */
const walkStep = 32;

/**
 * The newest block at or below `from` whose stored hash is still canonical, or `floor - 1` when none is
 * (everything the index holds was dropped). Walks back `walkStep` blocks per round trip.
 */
export async function findCommonAncestor(options: {
  from: number;
  floor: number;
  canonical: (numbers: number[]) => Promise<Map<number, string>>;
  stored: (numbers: number[]) => Promise<Map<number, string>>;
}): Promise<number> {
  let high = options.from;
  while (high >= options.floor) {
    const low = Math.max(options.floor, high - walkStep + 1);
    const numbers: number[] = [];
    for (let number = high; number >= low; number--) numbers.push(number);
    const [canonical, stored] = await Promise.all([options.canonical(numbers), options.stored(numbers)]);
    for (const number of numbers) {
      const hash = stored.get(number);
      if (hash !== undefined && hash === canonical.get(number)) return number;
    }
    high = low - 1;
  }
  return options.floor - 1;
}
