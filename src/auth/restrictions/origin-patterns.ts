import { boundedMemo } from '../../core/bounded-memo.ts';

/**
 * A key's `restrictions.origins`: exact origins (`https://app.example.com`) and subdomain wildcards
 * (`https://*.example.org`: any host with one or more labels before `.example.org`, not the apex).
 * Hosts compare case-insensitively and a default port is the same as none, as browsers send Origin.
 */
export interface OriginPatterns {
  /** Whether a request's Origin header value is listed. */
  allows(origin: string): boolean;
}

interface Wildcard {
  readonly protocol: string;
  /** `.example.org`: the host must end with it and have at least one label before it. */
  readonly suffix: string;
  /** '' for the scheme's default port. */
  readonly port: string;
}

/** Stands in for `*` while URL parses a wildcard entry (URL refuses `*` in a host). */
const wildcardLabel = 'wildcard--label';
const schemePattern = /^(https?):\/\/(.*)$/i;

/**
 * `https://App.Example.com:443` -> `https://app.example.com`; `https://*.example.org` keeps its wildcard,
 * which may only be the whole first label of a name with at least two more.
 */
export function canonicalOrigin(entry: string): { value: string } | { problem: string } {
  const quoted = `'${entry}'`;
  const scheme = schemePattern.exec(entry);
  if (!scheme) return { problem: `${quoted} is not an origin: it needs a scheme (https:// or http://) and a host` };
  // One trailing slash is forgiven (a copied URL); anything else after the host is not an origin.
  const authority = scheme[2]!.endsWith('/') ? scheme[2]!.slice(0, -1) : scheme[2]!;
  if (/[/?#\\]/.test(authority))
    return { problem: `${quoted} is not an origin: it has a path, query or fragment (an origin is scheme://host[:port])` };
  if (authority.includes('@')) return { problem: `${quoted} is not an origin: it has user information` };
  const wildcard = authority.startsWith('*.');
  const plain = wildcard ? `${wildcardLabel}${authority.slice(1)}` : authority;
  if (plain.includes('*'))
    return { problem: `${quoted}: a wildcard may only be the whole first label, as in https://*.example.org` };
  let url: URL;
  try {
    url = new URL(`${scheme[1]!.toLowerCase()}://${plain}`);
  } catch {
    return { problem: `${quoted} is not an origin (scheme://host[:port])` };
  }
  if (wildcard && url.hostname.split('.').length < 3)
    return { problem: `${quoted}: a wildcard needs at least two labels after it, as in https://*.example.org` };
  // URL lower-cases the host, drops the scheme's default port and puts a name in its ASCII form, as browsers send it.
  const host = wildcard ? url.host.replace(wildcardLabel, '*') : url.host;
  return { value: `${url.protocol}//${host}` };
}

/** The patterns of a key's list (entries already validated; a bad one matches nothing). */
export function compileOriginPatterns(entries: readonly string[]): OriginPatterns {
  const exact = new Set<string>();
  const wildcards: Wildcard[] = [];
  for (const entry of entries) {
    const parsed = canonicalOrigin(entry);
    if ('problem' in parsed) continue;
    const star = parsed.value.indexOf('//*.');
    if (star === -1) {
      exact.add(parsed.value);
      continue;
    }
    const url = new URL(parsed.value.replace('//*.', '//'));
    wildcards.push({ protocol: url.protocol, suffix: `.${url.hostname}`, port: url.port });
  }
  const allowsOther = boundedMemo((origin) => {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if (url.origin === 'null') return false;
    if (exact.has(url.origin)) return true;
    const { protocol, hostname, port } = url;
    return wildcards.some(
      (wildcard) =>
        wildcard.protocol === protocol &&
        wildcard.port === port &&
        hostname.length > wildcard.suffix.length &&
        hostname.endsWith(wildcard.suffix),
    );
  });
  return {
    // Browsers send the canonical form: most requests end at the Set.
    allows: (origin) => exact.has(origin) || allowsOther(origin),
  };
}
