/** Which methods an upstream serves, from its `methods: {allow, deny}` setting. */
export type MethodFilter = (method: string) => boolean;

/** Everything: the filter of an upstream without `methods`. */
export const allMethods: MethodFilter = () => true;

/**
 * A method is served when `allow` (absent: every method) matches it and `deny` does not; `*` stands for
 * any run of characters (`trace_*`, `debug_*`, `*`). Answers are memoised: methods are few.
 *
 * @example createMethodFilter({ deny: ['trace_*', 'debug_*'] })('eth_call') // true
 */
export function createMethodFilter(methods: { allow?: readonly string[]; deny?: readonly string[] } | undefined): MethodFilter {
  if (methods === undefined || (methods.allow === undefined && (methods.deny?.length ?? 0) === 0)) return allMethods;
  const allow = methods.allow?.map(patternOf);
  const deny = (methods.deny ?? []).map(patternOf);
  const known = new Map<string, boolean>();
  return (method) => {
    let served = known.get(method);
    if (served === undefined) {
      served = (allow === undefined || allow.some((pattern) => pattern.test(method))) && !deny.some((p) => p.test(method));
      if (known.size < 10_000) known.set(method, served);
    }
    return served;
  };
}

function patternOf(glob: string): RegExp {
  return new RegExp(`^${glob.split('*').map(escapeRegExp).join('.*')}$`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
