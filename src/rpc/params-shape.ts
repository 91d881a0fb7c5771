/**
 * Deepest nesting of `params` accepted. Real calls nest a handful of levels (an eth_simulateV1 with
 * state overrides about 7); a bound keeps every later walk (cache key, forwarding, logging) off the
 * stack limit, which JSON.stringify reaches at a few thousand levels.
 */
export const maxParamsDepth = 64;

/**
 * Why `params` cannot be forwarded, or undefined when it can: nested deeper than `maxParamsDepth`, or
 * an object with two members whose names differ only in case. Go nodes (geth, erigon, op-geth, bor)
 * match member names case-insensitively, last one wins, so `{"toBlock":"0x1","TOBLOCK":"latest"}` is
 * checked here as block 1 and run there as `latest`. Iterative: any depth is safe to inspect.
 *
 * @example paramsProblem([{ to: '0x…', data: '0x' }, 'latest']) // undefined
 */
export function paramsProblem(params: object): string | undefined {
  const pending: object[] = [params];
  const depths: number[] = [1];
  while (pending.length > 0) {
    const value = pending.pop()!;
    const depth = depths.pop()!;
    if (Array.isArray(value)) {
      for (const item of value) {
        if (item === null || typeof item !== 'object') continue;
        if (depth >= maxParamsDepth) return tooDeep;
        pending.push(item);
        depths.push(depth + 1);
      }
      continue;
    }
    const record = value as Record<string, unknown>;
    const names = Object.keys(record);
    if (names.length > 1) {
      const collision = caseCollision(names);
      if (collision !== undefined) return collision;
    }
    for (const name of names) {
      const item = record[name];
      if (item === null || typeof item !== 'object') continue;
      if (depth >= maxParamsDepth) return tooDeep;
      pending.push(item);
      depths.push(depth + 1);
    }
  }
  return undefined;
}

const tooDeep = `invalid params: 'params' nests deeper than ${maxParamsDepth} levels`;

/** Go folds names with unicode.ToUpper(unicode.ToLower(r)): `ſ` matches `s`, the Kelvin sign `k`. */
export function foldName(name: string): string {
  return name.toLowerCase().toUpperCase();
}

function caseCollision(names: readonly string[]): string | undefined {
  const seen = new Map<string, string>();
  for (const name of names) {
    const folded = foldName(name);
    const earlier = seen.get(folded);
    if (earlier !== undefined) {
      return `invalid params: 'params' has members '${clip(earlier)}' and '${clip(name)}', whose names differ only in case`;
    }
    seen.set(folded, name);
  }
  return undefined;
}

/** Member names come from the client: a message quotes at most 64 characters of one. */
export function clip(name: string): string {
  return name.length > 64 ? `${name.slice(0, 64)}…` : name;
}
