import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/core/errors.ts';
import type { WebhookEventType } from '../../../src/webhooks/event-types.ts';
import {
  maxConfirmations,
  maxListEntries,
  maxWebhookAddresses,
  parseWebhookConfig,
} from '../../../src/webhooks/webhook-config.ts';

const a = `0x${'a'.repeat(40)}`;
const b = `0x${'b'.repeat(40)}`;
const hash = `0x${'c'.repeat(64)}`;
const topic = `0x${'d'.repeat(64)}`;
const maxUint256 = ((1n << 256n) - 1n).toString();

/** The AppError `run` throws; fails the test when it throws nothing or something else. */
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

describe('parseWebhookConfig: addresses and other address lists', () => {
  it('lower-cases addresses and drops duplicates, keeping the first order', () => {
    const config = parseWebhookConfig('address_activity', { addresses: [a.toUpperCase().replace('0X', '0x'), b, a] });
    expect(config.addresses).toEqual([a, b]);
  });

  it('reads a single string as a list of one', () => {
    expect(parseWebhookConfig('token_transfer', { from: a.toUpperCase().replace('0X', '0x') }).from).toEqual([a]);
    expect(parseWebhookConfig('nft_transfer', { to: b, contracts: a }).contracts).toEqual([a]);
  });

  it('names the bad entry by its index', () => {
    const error = errorOf(() => parseWebhookConfig('address_activity', { addresses: [a, '0x1234'] }));
    expect(error.message).toContain('config.addresses[1]');
    expect(error.message).toContain('0x address of 40 hex digits');
  });

  it.each([
    ['a number', 42],
    ['an object', { address: a }],
    ['an address without 0x', 'a'.repeat(40)],
    ['41 hex digits', `0x${'a'.repeat(41)}`],
    ['a non-hex digit', `0x${'g'.repeat(40)}`],
  ])('refuses %s as an address', (_, value) => {
    expect(errorOf(() => parseWebhookConfig('token_transfer', { to: [value] })).message).toContain('config.to[0]');
  });

  it('refuses a value that is neither a string nor a list', () => {
    expect(errorOf(() => parseWebhookConfig('token_transfer', { contracts: 7 })).message).toContain(
      "'config.contracts': must be a list",
    );
  });

  it(`accepts ${maxListEntries} entries in a list and refuses one more`, () => {
    const contracts = Array.from({ length: maxListEntries }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`);
    expect(parseWebhookConfig('token_transfer', { contracts }).contracts).toHaveLength(maxListEntries);
    const error = errorOf(() => parseWebhookConfig('token_transfer', { contracts: [...contracts, a] }));
    expect(error.message).toContain(`'config.contracts': has ${maxListEntries + 1} entries; at most ${maxListEntries}`);
  });

  it(`accepts ${maxWebhookAddresses} addresses and refuses one more`, () => {
    const addresses = Array.from({ length: maxWebhookAddresses }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`);
    expect(parseWebhookConfig('address_activity', { addresses }).addresses).toHaveLength(maxWebhookAddresses);
    const error = errorOf(() => parseWebhookConfig('address_activity', { addresses: [...addresses, a] }));
    expect(error.message).toContain(`has ${maxWebhookAddresses + 1} entries; at most ${maxWebhookAddresses}`);
  });

  it('checks the length before the entries, so an over-long list of duplicates is still refused', () => {
    const error = errorOf(() => parseWebhookConfig('token_transfer', { from: new Array(maxListEntries + 1).fill(a) }));
    expect(error.message).toContain('config.from');
  });
});

describe('parseWebhookConfig: keys', () => {
  it('refuses an unknown key and lists the keys the type takes', () => {
    const error = errorOf(() => parseWebhookConfig('new_block', { colour: 'red' }));
    expect(error.message).toBe("invalid parameter 'config.colour': unknown key; new_block takes confirmations");
  });

  it.each<[WebhookEventType, string, unknown]>([
    ['new_block', 'addresses', [a]],
    ['mined_transaction', 'addresses', [a]],
    ['address_activity', 'contracts', [a]],
    ['token_transfer', 'token_ids', ['1']],
    ['nft_transfer', 'min_value', '1'],
    ['log', 'from', [a]],
    ['internal_transfer', 'function_selectors', ['0x12345678']],
    ['pending_transaction', 'confirmations', 1],
    ['pending_transaction', 'contracts', [a]],
  ])('%s refuses %s, which does not apply to it', (type, key, value) => {
    const error = errorOf(() => parseWebhookConfig(type, { [key]: value }));
    expect(error.message).toContain(`'config.${key}': does not apply to ${type}`);
  });

  it('skips keys whose value is undefined', () => {
    expect(parseWebhookConfig('token_transfer', { from: undefined, to: [a] })).toEqual({ to: [a] });
  });

  it('reads a missing config as empty, and refuses a config that is not an object', () => {
    expect(parseWebhookConfig('new_block', undefined)).toEqual({});
    expect(parseWebhookConfig('log', null)).toEqual({});
    expect(errorOf(() => parseWebhookConfig('log', [a])).message).toContain("'config': must be an object");
    expect(errorOf(() => parseWebhookConfig('log', 'x')).message).toContain("'config': must be an object");
  });
});

describe('parseWebhookConfig: what a type needs', () => {
  it('address_activity needs addresses', () => {
    expect(errorOf(() => parseWebhookConfig('address_activity', {})).message).toContain(
      'address_activity needs at least one entry in config.addresses',
    );
    expect(errorOf(() => parseWebhookConfig('address_activity', { addresses: [] })).message).toContain('config.addresses');
    expect(parseWebhookConfig('address_activity', { addresses: a }).addresses).toEqual([a]);
  });

  it('mined_transaction needs tx_hashes, lower-cased', () => {
    expect(errorOf(() => parseWebhookConfig('mined_transaction', { confirmations: 2 })).message).toContain('config.tx_hashes');
    const upper = `0x${'C'.repeat(64)}`;
    expect(parseWebhookConfig('mined_transaction', { tx_hashes: [upper, hash] }).tx_hashes).toEqual([hash]);
    expect(
      errorOf(() => parseWebhookConfig('mined_transaction', { tx_hashes: [hash, `0x${'c'.repeat(63)}`] })).message,
    ).toContain('config.tx_hashes[1]');
  });

  it('pending_transaction needs addresses, from or to', () => {
    const error = errorOf(() => parseWebhookConfig('pending_transaction', { min_value: '1' }));
    expect(error.message).toContain("'config.addresses or config.from or config.to'");
    expect(parseWebhookConfig('pending_transaction', { from: a }).from).toEqual([a]);
    expect(parseWebhookConfig('pending_transaction', { to: a }).to).toEqual([a]);
    expect(parseWebhookConfig('pending_transaction', { addresses: [a] }).addresses).toEqual([a]);
  });

  it('types without a need take an empty config', () => {
    for (const type of ['token_transfer', 'nft_transfer', 'log', 'internal_transfer', 'new_block'] as const) {
      expect(parseWebhookConfig(type, {})).toEqual({});
    }
  });
});

describe('parseWebhookConfig: numbers', () => {
  it.each([
    ['1000', '1000'],
    ['0', '0'],
    ['0x10', '16'],
    ['0xFF', '255'],
    [1234, '1234'],
    [maxUint256, maxUint256],
    [`0x${'f'.repeat(64)}`, maxUint256],
  ])('min_value %s is %s', (input, expected) => {
    expect(parseWebhookConfig('token_transfer', { min_value: input }).min_value).toBe(expected);
  });

  it('refuses a min_value larger than a uint256', () => {
    const tooLarge = ((1n << 256n) + 0n).toString();
    expect(errorOf(() => parseWebhookConfig('token_transfer', { min_value: tooLarge })).message).toContain(
      'larger than a uint256',
    );
  });

  it.each([['-1'], [-1], [1.5], ['1e18'], ['0x'], [''], [' 1'], [Number.MAX_SAFE_INTEGER + 2], [true]])(
    'refuses min_value %s',
    (input) => {
      expect(errorOf(() => parseWebhookConfig('internal_transfer', { min_value: input })).message).toContain(
        "'config.min_value': must be a non-negative integer",
      );
    },
  );

  it('normalizes token_ids to decimal and drops the duplicates that makes', () => {
    expect(parseWebhookConfig('nft_transfer', { token_ids: ['0x0a', '10', 7, '007'] }).token_ids).toEqual(['10', '7']);
    expect(errorOf(() => parseWebhookConfig('nft_transfer', { token_ids: ['1', 'x'] })).message).toContain('config.token_ids[1]');
  });

  it(`takes confirmations from 0 to ${maxConfirmations}, or "finalized"`, () => {
    expect(parseWebhookConfig('new_block', { confirmations: 0 }).confirmations).toBe(0);
    expect(parseWebhookConfig('new_block', { confirmations: maxConfirmations }).confirmations).toBe(maxConfirmations);
    expect(parseWebhookConfig('new_block', { confirmations: 'finalized' }).confirmations).toBe('finalized');
    for (const bad of [-1, maxConfirmations + 1, 1.5, '3', 'safe']) {
      expect(errorOf(() => parseWebhookConfig('new_block', { confirmations: bad })).message).toContain(
        `'config.confirmations': must be an integer from 0 to ${maxConfirmations}`,
      );
    }
  });

  it('lower-cases function selectors and refuses other lengths', () => {
    expect(parseWebhookConfig('address_activity', { addresses: a, function_selectors: '0xA9059CBB' }).function_selectors).toEqual(
      ['0xa9059cbb'],
    );
    expect(
      errorOf(() => parseWebhookConfig('address_activity', { addresses: a, function_selectors: ['0xa9059cbb', '0xa9059c'] }))
        .message,
    ).toContain('config.function_selectors[1]');
  });
});

describe('parseWebhookConfig: topics', () => {
  it('keeps null positions, single topics and alternatives, lower-cased', () => {
    const config = parseWebhookConfig('log', { topics: [topic.toUpperCase().replace('0X', '0x'), null, [hash, topic, hash]] });
    expect(config.topics).toEqual([topic, null, [hash, topic]]);
  });

  it('takes 4 positions and refuses 5', () => {
    expect(parseWebhookConfig('log', { topics: [null, null, null, topic] }).topics).toHaveLength(4);
    expect(errorOf(() => parseWebhookConfig('log', { topics: [null, null, null, null, topic] })).message).toContain(
      "'config.topics': has more than 4 positions",
    );
  });

  it('names a bad topic by position and alternative', () => {
    expect(errorOf(() => parseWebhookConfig('log', { topics: [topic, '0x12'] })).message).toContain('config.topics[1]');
    expect(errorOf(() => parseWebhookConfig('log', { topics: [null, [topic, 5]] })).message).toContain('config.topics[1][1]');
  });

  it('refuses topics that are not a list', () => {
    expect(errorOf(() => parseWebhookConfig('log', { topics: topic })).message).toContain("'config.topics': must be a list");
  });
});
