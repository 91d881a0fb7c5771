import fc from 'fast-check';
import type { OperationParameter } from './operations.ts';
import { type Hints, validValue } from './schema-values.ts';

/** One hostile piece of a query string, written as sent (already percent-encoded where it must be). */
export interface QueryAttack {
  /** The parameter whose valid entry the attack takes the place of. */
  readonly replaces?: string;
  readonly raw: string;
  readonly what: string;
}

const twoTo256 = '115792089237316195423570985008687907853269984665640564039457584007913129639936';

/** Values past what a number, an address or a token id parser expects, as text. */
const hugeNumbers = [
  '9'.repeat(80),
  twoTo256,
  `-${twoTo256}`,
  `0x${'f'.repeat(80)}`,
  `0x${'F'.repeat(64)}`,
  '1e999',
  '-0',
  '1.0',
  '01',
  '+1',
  '0b1',
  '0o7',
  '1_000',
  'Infinity',
  'NaN',
];

/** Unicode that looks like digits, hex or nothing, and text direction and byte-order marks. */
const unicodeValues = ['é', '💩', '\u202e1', '\ufeff1', '１２３', '١٢٣', `0x${'ｆ'.repeat(40)}`, 'ß', '\u0130', 'Ω'];

/** Percent-escapes sent raw: broken, overlong, surrogates, double-encoded, CRLF, an `&` smuggled in. */
const rawEscapes = [
  '%',
  '%zz',
  '%00',
  '%ff',
  '%C0%AE',
  '%ED%A0%80',
  '%252F',
  '%2526owner%3D0x0',
  '%0D%0AX-Injected:%201',
  '+',
  '%20',
  '%E2%80%AE',
];

/** Lists and objects spelt as text, and address shapes one step from valid. */
const shapes = [
  '["0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"]',
  '[]',
  '{"a":1}',
  '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266,0x0000000000000000000000000000000000000001',
  '0XF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266',
  'f39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb922661',
  '0xF39fd6e51aad88F6F4ce6aB8827279cffFb92266',
];

const hostileValues: { raw: string; what: string }[] = [
  ...hugeNumbers.map((value) => ({ raw: encodeURIComponent(value), what: `huge number ${value.slice(0, 20)}` })),
  ...unicodeValues.map((value) => ({ raw: encodeURIComponent(value), what: `unicode ${JSON.stringify(value)}` })),
  ...rawEscapes.map((raw) => ({ raw, what: `raw escape ${raw}` })),
  ...shapes.map((value) => ({ raw: encodeURIComponent(value), what: `shape ${value.slice(0, 30)}` })),
];

/** The name spelt as a client in another language might, or an attacker would: case, brackets, escapes. */
export function nameVariants(name: string): string[] {
  const base = name.replace(/\[\]$/, '');
  const variants = [
    base.charAt(0).toUpperCase() + base.slice(1),
    base.toUpperCase(),
    base.toLowerCase(),
    `${base}[]`,
    `${base.toLowerCase()}[]`,
    `${base}%5B%5D`,
    `${base}[0]`,
    `${base}[x]`,
    `${base}.x`,
    `%${base.charCodeAt(0).toString(16)}${base.slice(1)}`,
    `%20${base}`,
    `${base}%00`,
  ];
  return [...new Set(variants)].filter((variant) => variant !== name);
}

/** How often a name is repeated: twice, past a list's bounds (45 contracts, 100 items), or anywhere to 120. */
const repeats = fc.oneof(fc.constantFrom(2, 46, 101), fc.integer({ min: 2, max: 120 }));

/** A list parameter three times in four, when there is one: repeating a scalar's name is the rarer attack. */
function listOrAny(parameters: OperationParameter[]): fc.Arbitrary<OperationParameter> {
  const lists = parameters.filter((p) => p.schema.type === 'array');
  const any = fc.constantFrom(...parameters);
  return lists.length === 0 ? any : fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...lists) }, { weight: 1, arbitrary: any });
}

/** A valid value of the parameter as text (a list parameter's first item). */
function validText(parameter: OperationParameter, hints: Hints): fc.Arbitrary<string> {
  return validValue(parameter.schema, hints, parameter.name).map((value) => {
    const item = Array.isArray(value) ? (value[0] ?? '') : value;
    return typeof item === 'string' ? item : JSON.stringify(item);
  });
}

/**
 * Hostile pieces of a query string for these parameters: a name in another case or with brackets (with a
 * valid value), a hostile value under the right name, the name repeated up to 120 times (a list past its
 * bound), and query text that is no `name=value` list.
 */
export function queryAttacks(parameters: OperationParameter[], hints: Hints): fc.Arbitrary<QueryAttack> {
  const attacks: fc.Arbitrary<QueryAttack>[] = [
    fc
      .constantFrom('&&&', '=1', 'owner', 'a=b=c', '%3D%26=1', '?x=1', '&=', '__proto__[x]=1', 'constructor[prototype][x]=1')
      .map((raw) => ({ raw, what: `query text ${raw}` })),
  ];
  if (parameters.length > 0) {
    const parameter = fc.constantFrom(...parameters);
    attacks.push(
      parameter.chain((p) =>
        fc.tuple(fc.constantFrom(...nameVariants(p.name)), validText(p, hints)).map(([name, value]) => ({
          replaces: p.name,
          raw: `${name}=${encodeURIComponent(value)}`,
          what: `name ${name}`,
        })),
      ),
      parameter.chain((p) =>
        fc.constantFrom(...hostileValues).map((value) => ({
          replaces: p.name,
          raw: `${encodeURIComponent(p.name)}=${value.raw}`,
          what: `${p.name} = ${value.what}`,
        })),
      ),
      listOrAny(parameters).chain((p) =>
        fc.tuple(validText(p, hints), repeats).map(([value, times]) => ({
          replaces: p.name,
          raw: Array.from({ length: times }, () => `${encodeURIComponent(p.name)}=${encodeURIComponent(value)}`).join('&'),
          what: `${p.name} repeated ${times} times`,
        })),
      ),
    );
  }
  return fc.oneof(...attacks);
}
