import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NewSponsorship, policyUsage, reserveSponsorship } from '../../src/sponsorship/sponsorship-store.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const op = (userOpHash: string): NewSponsorship => ({
  policyId: 'gp_repeat',
  accountId: 'acct_repeat',
  network: 'ethereum/devnet',
  entryPoint: '0x0000000071727De22E5E9d8BAf0edAc6f37da032',
  sender: '0x1111111111111111111111111111111111111111',
  userOpHash,
  maxCostWei: 10n ** 15n,
  reservedUsdPico: 3_000_000_000_000n,
  validUntil: new Date(Date.now() + 600_000),
});

describe('a sponsorship of the same op again (same userOpHash)', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t?.close());

  it('reserves once: a retried sponsor call within the same second is counted once, not twice', async () => {
    const hash = `0x${'ab'.repeat(32)}`;
    const allow = () => undefined;
    const first = await reserveSponsorship(t.db, op(hash), allow, 60);
    const again = await reserveSponsorship(t.db, op(hash.toUpperCase().replace('0X', '0x')), allow, 60);
    expect(first.reserved && again.reserved).toBe(true);
    expect(again).toEqual(first);
    const usage = await policyUsage(t.db, 'gp_repeat');
    expect(usage.ops).toBe(1);
    expect(usage.reservedUsd).toBe('3');
    // Another op is another reservation.
    await reserveSponsorship(t.db, op(`0x${'cd'.repeat(32)}`), allow, 60);
    expect((await policyUsage(t.db, 'gp_repeat')).ops).toBe(2);
  });
});
