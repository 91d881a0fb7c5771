/**
 * The `cors_origins` setting as browsers send the Origin header (`https://app.example.com`: lower
 * case, no default port, no path), or `['*']` for any origin; else what is wrong with it.
 * @example parseCorsOrigins(['https://App.example.com:443/']) // { origins: ['https://app.example.com'] }
 */
export function parseCorsOrigins(values: readonly string[]): { origins: string[] } | { problem: string } {
  if (values.includes('*'))
    return values.length === 1 ? { origins: ['*'] } : { problem: '"*" allows every origin: list it alone' };
  const origins: string[] = [];
  for (const value of values) {
    const origin = originOf(value);
    if (origin === undefined) {
      return { problem: `'${value}' is not an origin: give scheme, host and port only (https://app.example.com), or "*"` };
    }
    origins.push(origin);
  }
  return { origins: [...new Set(origins)] };
}

function originOf(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const web = url.protocol === 'https:' || url.protocol === 'http:';
  const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  return web && bare && !value.includes('?') && !value.includes('#') ? url.origin : undefined;
}
