/** How many block hashes are compared per round trip while walking back. */
const walkStep = 32;

/**
 * Where the stored chain and the upstreams' chain part: `ancestor`, the newest block at or below `from`
 * whose stored hash is still canonical (`floor - 1` when none is: everything the index holds was
 * dropped); or `unknown`, the walk met a block no upstream has (yet) before it found a different hash
 * below it, so nothing proves a reorg there.
 */
export type AncestorSearch = { readonly ancestor: number } | { readonly unknown: number };

/**
 * Walks back from `from`, `walkStep` blocks per round trip. A block is passed over only when an upstream
 * that has it answers another hash than the stored one; a block whose canonical hash is unknown (absent
 * from `canonical`: no upstream has it) stops the walk, so a node a block behind never undoes a block.
 */
export async function findCommonAncestor(options: {
  from: number;
  floor: number;
  canonical: (numbers: number[]) => Promise<Map<number, string>>;
  stored: (numbers: number[]) => Promise<Map<number, string>>;
}): Promise<AncestorSearch> {
  let high = options.from;
  while (high >= options.floor) {
    const low = Math.max(options.floor, high - walkStep + 1);
    const numbers: number[] = [];
    for (let number = high; number >= low; number--) numbers.push(number);
    const [canonical, stored] = await Promise.all([options.canonical(numbers), options.stored(numbers)]);
    for (const number of numbers) {
      const hash = stored.get(number);
      const current = canonical.get(number);
      if (current === undefined) return { unknown: number };
      if (hash !== undefined && hash === current) return { ancestor: number };
    }
    high = low - 1;
  }
  return { ancestor: options.floor - 1 };
}
