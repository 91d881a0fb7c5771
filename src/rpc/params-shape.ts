import { clip } from '../jsonrpc/messages.ts';
import { caseVariantOf, checksMemberNames } from './member-names.ts';

/**
 * Deepest nesting of `params` accepted. Real calls nest a handful of levels (an eth_simulateV1 with
 * state overrides about 7); a bound keeps every later walk (cache key, forwarding, logging) off the
 * stack limit, which JSON.stringify reaches at a few thousand levels.
 */
export const maxParamsDepth = 64;

/**
 * Why `params` cannot be forwarded, or undefined when it can: nested deeper than `maxParamsDepth`, an
 * object with two members whose names differ only in case, or a member that differs from a canonical
 * name only in case (src/rpc/member-names.ts; not checked for `method`s whose member names are the
 * client's data). Go nodes (geth, erigon, op-geth, bor) match member names case-insensitively, last one
 * wins, so `{"toBlock":"0x1","TOBLOCK":"latest"}` is checked here as block 1 and run there as `latest`;
 * Rust nodes (anvil, reth) ignore `{"To": …}`, so a call checked here as one to `to` runs there as a
 * contract creation. Every surface (`/v1/rpc`, the bundler, the WebSocket) calls this before anything
 * reads the params. Iterative: any depth is safe to inspect.
 *
 * @example paramsProblem([{ to: '0x…', data: '0x' }, 'latest']) // undefined
 * @example paramsProblem([{ To: '0x…' }]) // 'invalid member "To" in params[0]: member names are case-sensitive; did you mean "to"?'
 */
export function paramsProblem(params: object, method?: string): string | undefined {
  const checkNames = checksMemberNames(method);
  const pending: object[] = [params];
  const depths: number[] = [1];
  while (pending.length > 0) {
    const value = pending.pop()!;
    const depth = depths.pop()!;
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        const item: unknown = value[index];
        if (typeof item === 'number' && isInexact(item)) return numberMessage(`${pathTo(params, value)}[${index}]`, item);
        if (typeof item === 'string' && !isWellFormed(item)) return surrogateMessage(`${pathTo(params, value)}[${index}]`);
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
      if (!isWellFormed(name)) return surrogateMessage(`a member name in ${pathTo(params, record)}`);
      const meant = checkNames ? caseVariantOf(name) : undefined;
      if (meant !== undefined) return caseVariantMessage(pathTo(params, record), name, meant);
      const item = record[name];
      if (typeof item === 'number' && isInexact(item))
        return numberMessage(`${pathTo(params, record)}${pathSegment(name)}`, item);
      if (typeof item === 'string' && !isWellFormed(item))
        return surrogateMessage(`${pathTo(params, record)}${pathSegment(name)}`);
      if (item === null || typeof item !== 'object') continue;
      if (depth >= maxParamsDepth) return tooDeep;
      pending.push(item);
      depths.push(depth + 1);
    }
  }
  return undefined;
}

const tooDeep = `invalid params: 'params' nests deeper than ${maxParamsDepth} levels`;

/**
 * A JSON number the proxy could not forward as sent: `1e400` parses as Infinity (and would go on as
 * `null`, which a node reads as a missing value: `latest` for a block), and past 2^53 - 1 a number is
 * rounded when parsed (9007199254740993 would go on as …992).
 */
function isInexact(value: number): boolean {
  return !Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER;
}

/**
 * Whether a string is valid Unicode (no unpaired UTF-16 surrogate). One with a lone surrogate goes on as
 * `"\ud800"`, which nodes refuse as a whole request, answering id null: the client could not match
 * the answer to its call. (`String.prototype.isWellFormed`, Node 20; not in the ES2023 typings.)
 */
export const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

function surrogateMessage(where: string): string {
  return `invalid params: ${where} must be valid Unicode text (it has an unpaired UTF-16 surrogate)`;
}

function numberMessage(where: string, value: number): string {
  return Number.isFinite(value)
    ? `invalid params: ${where} is a number past 9007199254740991, which JSON numbers cannot carry exactly; send it as a hex string`
    : `invalid params: ${where} is a number too large to represent`;
}

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

/**
 * The message of the -32602 a case variant gets: where it is (`params[0]`,
 * `params[0].blockStateCalls[1].calls[0]`) and the spelling meant.
 */
function caseVariantMessage(where: string, name: string, meant: string): string {
  return `invalid member ${JSON.stringify(clip(name))} in ${where}: member names are case-sensitive; did you mean ${JSON.stringify(meant)}?`;
}

/** Where `target`, an object inside `params`, is: a path from `params`. Only run for a refused call. */
function pathTo(params: object, target: object): string {
  const pending: { value: unknown; path: string }[] = [{ value: params, path: 'params' }];
  while (pending.length > 0) {
    const { value, path } = pending.pop()!;
    if (value === target) return path;
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) for (const [i, item] of value.entries()) pending.push({ value: item, path: `${path}[${i}]` });
    else for (const [name, item] of Object.entries(value)) pending.push({ value: item, path: `${path}${pathSegment(name)}` });
  }
  return 'params';
}

const identifier = /^[A-Za-z_$][\w$]*$/;

function pathSegment(name: string): string {
  return identifier.test(name) ? `.${clip(name)}` : `[${JSON.stringify(clip(name))}]`;
}
