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

const patternShape = /^([a-z][a-z0-9+.-]*):\/\/(\*\.)?([^/?#@*]+)\/?$/i;

/**
 * An entry of `restrictions.origins` in the form browsers send (lower case, no default port), or what
 * is wrong with it.
 * @example parseOriginPattern('https://*.Example.org:443') // { origin: 'https://*.example.org' }
 */
export function parseOriginPattern(text: string): { origin: string } | { problem: string } {
  const shape = patternShape.exec(text.trim());
  if (shape === null) {
    return {
      problem: `'${text}' is not an origin: give scheme, host and port only (https://app.example.com), or a subdomain wildcard (https://*.example.org)`,
    };
  }
  const [, scheme, wildcard, hostAndPort] = shape as unknown as [string, string, string | undefined, string];
  let url: URL;
  try {
    url = new URL(`${scheme}://${hostAndPort}`);
  } catch {
    return { problem: `'${text}' is not an origin: its host or port does not parse` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { problem: `'${text}' is not an http or https origin` };
  if (url.username || url.password) return { problem: `'${text}' is not an origin: it has credentials` };
  return { origin: wildcard === undefined ? url.origin : `${url.protocol}//*.${url.host}` };
}

/** The patterns of a key's list (entries already validated; a bad one matches nothing). */
export function compileOriginPatterns(entries: readonly string[]): OriginPatterns {
  const exact = new Set<string>();
  const wildcards: Wildcard[] = [];
  for (const entry of entries) {
    const parsed = parseOriginPattern(entry);
    if ('problem' in parsed) continue;
    const star = parsed.origin.indexOf('//*.');
    if (star === -1) {
      exact.add(parsed.origin);
      continue;
    }
    const url = new URL(parsed.origin.replace('//*.', '//'));
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
