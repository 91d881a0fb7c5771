import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.ts';
import {
  defaultSponsorshipExpiryS,
  formatPolicyRules,
  maxRuleListEntries,
  parsePolicyRules,
  policyRuleNames,
  selectorOf,
} from '../../src/sponsorship/policy-rules.ts';

const a = `0x${'a'.repeat(40)}`;
const b = `0x${'b'.repeat(40)}`;
// An EIP-55 checksummed address and the same with one letter's case flipped.
const checksummed = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const badChecksum = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD';

/** The 400 `run` throws; fails the test when it throws nothing or something else. */
function errorOf(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('invalid_request');
    expect((error as AppError).status).toBe(400);
    return error as AppError;
  }
  throw new Error('expected an AppError, nothing was thrown');
}

/** The message of the 400 that `rules` gets; it must name `path` exactly (quoted, so `[1]` is not `[10]`). */
function refusal(rules: unknown, path: string): string {
  const { message } = errorOf(() => parsePolicyRules(rules));
  expect(message).toContain(`'${path}'`);
  return message;
}

describe('parsePolicyRules: the whole set', () => {
  it('takes no rules at all, with the default expiry', () => {
    expect(parsePolicyRules({})).toEqual({ sponsorship_expiry_s: defaultSponsorshipExpiryS });
  });

  it('takes every rule and normalises it', () => {
    const rules = parsePolicyRules({
      max_gas_usd: '0050.00',
      max_gas_usd_per_op: '0.25',
      max_gas_usd_per_sender: '5',
      max_ops: 1000,
      max_ops_per_sender: 10,
      max_per_user_per_day: 3,
      allowed_contracts: [a.toUpperCase().replace('0X', '0x'), b, a],
      allowed_methods: ['transfer(address,uint256)', '0x095EA7B3', 'function approve(address spender, uint amount)'],
      allowed_senders: [checksummed],
      blocked_senders: [],
      start_time: '2026-12-01T00:00:00+02:00',
      end_time: 1_800_000_000,
      rate_limit: { ops: 5, per_seconds: 60 },
      sponsorship_expiry_s: 120,
    });
    expect(rules).toEqual({
      max_gas_usd: '50.00',
      max_gas_usd_per_op: '0.25',
      max_gas_usd_per_sender: '5',
      max_ops: 1000,
      max_ops_per_sender: 10,
      max_per_user_per_day: 3,
      allowed_contracts: [a, b],
      // The signature of approve has the selector given before it as 0x095ea7b3: one entry, the first.
      allowed_methods: [
        { selector: '0xa9059cbb', method: 'transfer(address,uint256)' },
        { selector: '0x095ea7b3', method: '0x095ea7b3' },
      ],
      allowed_senders: [checksummed.toLowerCase()],
      blocked_senders: [],
      start_time: '2026-11-30T22:00:00.000Z',
      end_time: '2027-01-15T08:00:00.000Z',
      rate_limit: { ops: 5, per_seconds: 60 },
      sponsorship_expiry_s: 120,
    });
  });

  it('reads null as an absent rule', () => {
    expect(parsePolicyRules({ max_ops: null, allowed_contracts: null })).toEqual({ sponsorship_expiry_s: 600 });
  });

  it('refuses what is not an object, naming the path it was given', () => {
    for (const input of [null, undefined, [], 'max_ops', 5])
      expect(errorOf(() => parsePolicyRules(input)).message).toContain("'rules'");
    expect(errorOf(() => parsePolicyRules([], 'body.rules')).message).toContain("'body.rules'");
  });

  it('refuses an unknown rule by name, listing the known ones', () => {
    const message = refusal({ max_ops: 1, max_gas_eth: '1' }, 'rules.max_gas_eth');
    expect(message).toContain('is not a known rule');
    for (const name of policyRuleNames) expect(message).toContain(name);
    refusal({ MAX_OPS: 1 }, 'rules.MAX_OPS');
  });

  it('gives back, formatted, what it takes again unchanged', () => {
    const rules = parsePolicyRules({
      max_gas_usd: '10',
      allowed_methods: ['transfer(address,uint256)', '0x095ea7b3'],
      start_time: '2026-12-01T00:00:00Z',
    });
    const shown = formatPolicyRules(rules);
    expect(shown).toEqual({
      max_gas_usd: '10',
      allowed_methods: ['transfer(address,uint256)', '0x095ea7b3'],
      start_time: '2026-12-01T00:00:00.000Z',
      sponsorship_expiry_s: 600,
    });
    expect(parsePolicyRules(shown)).toEqual(rules);
  });
});

describe('parsePolicyRules: each rule refuses a bad value, naming its path', () => {
  it('USD amounts: decimal strings greater than 0', () => {
    for (const name of ['max_gas_usd', 'max_gas_usd_per_op', 'max_gas_usd_per_sender']) {
      for (const bad of [
        5,
        '0',
        '0.000',
        '-1',
        '1e3',
        '1.',
        '.5',
        '12,50',
        '$5',
        ' 5',
        '1.1234567890123456789',
        '1234567890123456',
      ]) {
        expect(refusal({ [name]: bad }, `rules.${name}`), `${name}: ${bad}`).toContain('decimal string');
      }
      expect(parsePolicyRules({ [name]: '0.000001' })[name as 'max_gas_usd']).toBe('0.000001');
    }
  });

  it('counts: positive integers up to a billion', () => {
    for (const name of ['max_ops', 'max_ops_per_sender', 'max_per_user_per_day']) {
      expect(parsePolicyRules({ [name]: 1_000_000_000 })[name as 'max_ops']).toBe(1_000_000_000);
      for (const bad of [0, -1, 1.5, '10', true, 2 ** 53, 1_000_000_001]) {
        expect(refusal({ [name]: bad }, `rules.${name}`), `${name}: ${bad}`).toContain('positive integer');
      }
    }
  });

  it('address lists: 0x addresses of 40 hex digits, checksums checked when mixed case', () => {
    for (const name of ['allowed_contracts', 'allowed_senders', 'blocked_senders']) {
      expect(refusal({ [name]: [a, b, '0x1234'] }, `rules.${name}[2]`)).toContain('0x address');
      refusal({ [name]: [a, 42] }, `rules.${name}[1]`);
      expect(refusal({ [name]: [badChecksum] }, `rules.${name}[0]`)).toContain('checksum');
      expect(refusal({ [name]: { 0: a } }, `rules.${name}`)).toContain('list');
      refusal({ [name]: Array.from({ length: maxRuleListEntries + 1 }, () => a) }, `rules.${name}`);
    }
    // A single address is a list of one.
    expect(parsePolicyRules({ allowed_contracts: a }).allowed_contracts).toEqual([a]);
  });

  it('an empty allow-list is refused (it would refuse every op); an empty block-list is fine', () => {
    expect(refusal({ allowed_contracts: [] }, 'rules.allowed_contracts')).toContain('empty');
    refusal({ allowed_senders: [] }, 'rules.allowed_senders');
    refusal({ allowed_methods: [] }, 'rules.allowed_methods');
    expect(parsePolicyRules({ blocked_senders: [] }).blocked_senders).toEqual([]);
  });

  it('allowed_methods: selectors or function signatures with real Solidity types', () => {
    for (const bad of ['0x1234', '0xa9059cbbff', 'transfer', 'transfer(adress,uint256)', 'foo(uint7)', 'transfer(address', 7]) {
      expect(refusal({ allowed_methods: ['0xa9059cbb', bad] }, 'rules.allowed_methods[1]'), String(bad)).toContain('selector');
    }
    refusal({ allowed_methods: ['event Transfer(address,address,uint256)'] }, 'rules.allowed_methods[0]');
  });

  it('times: ISO 8601 with a zone, or Unix seconds; end after start', () => {
    for (const name of ['start_time', 'end_time']) {
      for (const bad of ['2026-12-01T10:00:00', '2026-02-30T00:00:00Z', '2026-12-01T24:00:00Z', 'tomorrow', '', -5, 1.5, true]) {
        refusal({ [name]: bad }, `rules.${name}`);
      }
      expect(refusal({ [name]: Date.now() }, `rules.${name}`)).toContain('milliseconds');
    }
    expect(parsePolicyRules({ start_time: '2026-12-01' }).start_time).toBe('2026-12-01T00:00:00.000Z');
    expect(parsePolicyRules({ start_time: '1800000000' }).start_time).toBe('2027-01-15T08:00:00.000Z');
    expect(parsePolicyRules({ start_time: '2026-12-01T10:00Z' }).start_time).toBe('2026-12-01T10:00:00.000Z');
    const message = refusal({ start_time: '2026-12-02T00:00:00Z', end_time: '2026-12-01T00:00:00Z' }, 'rules.end_time');
    expect(message).toContain('after rules.start_time');
    refusal({ start_time: 1_800_000_000, end_time: 1_800_000_000 }, 'rules.end_time');
  });

  it('rate_limit: {ops, per_seconds}, both positive integers, nothing else', () => {
    expect(refusal({ rate_limit: 5 }, 'rules.rate_limit')).toContain('{ops, per_seconds}');
    refusal({ rate_limit: [5, 60] }, 'rules.rate_limit');
    refusal({ rate_limit: { ops: 0, per_seconds: 60 } }, 'rules.rate_limit.ops');
    refusal({ rate_limit: { ops: 5, per_seconds: 1.5 } }, 'rules.rate_limit.per_seconds');
    refusal({ rate_limit: { ops: 5, per_seconds: 31 * 86_400 } }, 'rules.rate_limit.per_seconds');
    refusal({ rate_limit: { per_seconds: 60 } }, 'rules.rate_limit.ops');
    refusal({ rate_limit: { ops: 5 } }, 'rules.rate_limit.per_seconds');
    refusal({ rate_limit: { ops: 5, per_seconds: 60, burst: 2 } }, 'rules.rate_limit.burst');
  });

  it('sponsorship_expiry_s: an integer from 60 to 86400', () => {
    for (const bad of [59, 86_401, 600.5, '600']) refusal({ sponsorship_expiry_s: bad }, 'rules.sponsorship_expiry_s');
    expect(parsePolicyRules({ sponsorship_expiry_s: 60 }).sponsorship_expiry_s).toBe(60);
    expect(parsePolicyRules({ sponsorship_expiry_s: 86_400 }).sponsorship_expiry_s).toBe(86_400);
  });
});

describe('selectorOf', () => {
  it('hashes canonical signatures and lower-cases selectors', () => {
    expect(selectorOf('transfer(address,uint256)')).toBe('0xa9059cbb');
    expect(selectorOf(' transfer(address to, uint amount) ')).toBe('0xa9059cbb');
    expect(selectorOf('function transfer(address,uint256) returns (bool)')).toBe('0xa9059cbb');
    expect(selectorOf('0xA9059CBB')).toBe('0xa9059cbb');
    // SimpleAccount's executeBatch of v0.7 (a dynamic array of tuples-free arrays).
    expect(selectorOf('executeBatch(address[],uint256[],bytes[])')).toBe('0x47e1da2a');
  });

  it('refuses what is neither', () => {
    for (const bad of ['transfer', 'transfer(adress)', '0x123']) expect(() => selectorOf(bad)).toThrow(AppError);
  });
});
