// Pending transactions: compileMatcher takes no chain event for them; matchPendingTransaction matches them.
import { describe, expect, it } from 'vitest';
import {
  compileFilter,
  compileMatcher,
  matchPendingTransaction,
  type PendingTransaction,
} from '../../../src/webhooks/match-event.ts';
import type { WebhookConfig } from '../../../src/webhooks/webhook-config.ts';
import { alice, bob, carol, facts, txHash, typesMatched } from './match-event-fixtures.ts';

/** A pending transaction matched as the feed matches it: the webhook's filter compiled once. */
const matchPending = (config: WebhookConfig, tx: PendingTransaction) =>
  matchPendingTransaction(config, compileFilter(config, facts), tx);

describe('compileMatcher: pending_transaction', () => {
  it('takes no chain event', () => {
    expect(typesMatched(compileMatcher('pending_transaction', { addresses: [alice] }, facts))).toEqual([]);
  });
});

describe('matchPendingTransaction', () => {
  const pending = (tx: Partial<PendingTransaction> = {}): PendingTransaction => ({
    hash: txHash,
    from: alice,
    to: bob,
    value: 10n ** 18n,
    nonce: 5,
    input: `0xa9059cbb${'0'.repeat(128)}`,
    gas: 60_000n,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
    gasPrice: null,
    ...tx,
  });

  it('gives the transaction with amounts as decimal strings', () => {
    expect(matchPending({ from: [alice] }, pending())).toEqual({
      chain: 'ethereum',
      network: 'devnet',
      tx_hash: txHash,
      from: alice,
      to: bob,
      value: '1000000000000000000',
      nonce: 5,
      gas: '60000',
      max_fee_per_gas: '2000000000',
      max_priority_fee_per_gas: '1000000000',
      gas_price: null,
      selector: '0xa9059cbb',
      direction: 'outgoing',
    });
  });

  it('from, to and addresses', () => {
    const matches = (config: WebhookConfig, tx: Partial<PendingTransaction> = {}) =>
      matchPending(config, pending(tx)) !== undefined;
    expect(matches({ from: [bob] })).toBe(false);
    expect(matches({ to: [bob] })).toBe(true);
    expect(matches({ to: [alice] })).toBe(false);
    expect(matches({ to: [bob] }, { to: null })).toBe(false);
    expect(matches({ addresses: [bob] })).toBe(true);
    expect(matches({ addresses: [alice] }, { to: null })).toBe(true);
    expect(matches({ addresses: [carol] })).toBe(false);
    expect(matches({ from: [alice], to: [carol] })).toBe(false);
  });

  it('reads an empty list as no filter, as compileMatcher does', () => {
    expect(matchPending({ to: [bob], from: [] }, pending())).toBeDefined();
    expect(matchPending({ from: [alice], function_selectors: [] }, pending({ input: '0x' }))).toBeDefined();
    expect(matchPending({ to: [bob], from: [] }, pending())?.direction).toBe('incoming');
  });

  it('direction is outgoing when the sender is watched', () => {
    expect(matchPending({ addresses: [bob] }, pending())?.direction).toBe('incoming');
    expect(matchPending({ addresses: [alice] }, pending())?.direction).toBe('outgoing');
    expect(matchPending({ to: [bob] }, pending())?.direction).toBe('incoming');
  });

  it('min_value', () => {
    expect(matchPending({ to: [bob], min_value: (10n ** 18n).toString() }, pending())).toBeDefined();
    expect(matchPending({ to: [bob], min_value: (10n ** 18n + 1n).toString() }, pending())).toBeUndefined();
  });

  it('function_selectors need a call: not a plain transfer or a creation', () => {
    const config: WebhookConfig = { from: [alice], function_selectors: ['0xa9059cbb'] };
    expect(matchPending(config, pending())).toBeDefined();
    expect(matchPending(config, pending({ input: `0x095ea7b3${'0'.repeat(128)}` }))).toBeUndefined();
    expect(matchPending(config, pending({ input: '0x' }))).toBeUndefined();
    expect(matchPending(config, pending({ to: null }))).toBeUndefined();
    expect(matchPending({ from: [alice] }, pending({ to: null }))?.selector).toBeNull();
    expect(matchPending({ from: [alice] }, pending({ input: '0xa9059c' }))?.selector).toBeNull();
  });
});
