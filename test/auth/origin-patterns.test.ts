import { describe, expect, it } from 'vitest';
import { canonicalOrigin, compileOriginPatterns } from '../../src/auth/restrictions/origin-patterns.ts';

describe('restrictions.origins entries', () => {
  it.each([
    ['https://App.Example.com:443/', 'https://app.example.com'],
    ['http://localhost:5173', 'http://localhost:5173'],
    ['https://*.Example.org:443', 'https://*.example.org'],
    ['https://*.example.org:8443', 'https://*.example.org:8443'],
  ])('%s is stored as browsers send it: %s', (entry, origin) => {
    expect(canonicalOrigin(entry)).toEqual({ value: origin });
  });

  it.each([
    'app.example.com',
    'https://app.example.com/path',
    'ftp://files.example',
    'https://*.*.example',
    'https://a*.example',
    'https://u:p@x.example',
  ])('%s is refused, saying why', (entry) => {
    expect(canonicalOrigin(entry)).toEqual({ problem: expect.stringContaining(`'${entry}'`) });
  });
});

describe('matching a request Origin', () => {
  const patterns = compileOriginPatterns(['https://app.example.com', 'https://*.example.org', 'http://localhost:5173']);

  it.each([
    'https://app.example.com',
    'https://APP.EXAMPLE.COM',
    'https://app.example.com:443',
    'https://a.example.org',
    'https://deep.sub.example.org',
    'http://localhost:5173',
  ])('%s is listed', (origin) => {
    expect(patterns.allows(origin)).toBe(true);
  });

  it.each([
    'https://example.org',
    'https://evilexample.org',
    'https://a.example.org.evil.example',
    'http://a.example.org',
    'https://a.example.org:8443',
    'http://app.example.com',
    'https://app.example.com:8443',
    'http://localhost:5174',
    'null',
    'not an origin',
  ])('%s is not', (origin) => {
    expect(patterns.allows(origin)).toBe(false);
  });
});
