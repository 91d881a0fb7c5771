/**
 * Remembers a pure yes/no answer per string, up to `maxEntries` (then starts over): for checks on the
 * hot path whose inputs repeat (a client's address, a page's origin) and whose work is not free.
 */
export function boundedMemo(answer: (input: string) => boolean, maxEntries = 4096): (input: string) => boolean {
  const known = new Map<string, boolean>();
  return (input) => {
    let found = known.get(input);
    if (found === undefined) {
      found = answer(input);
      if (known.size >= maxEntries) known.clear();
      known.set(input, found);
    }
    return found;
  };
}
