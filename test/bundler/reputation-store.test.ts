import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReputationStore } from '../../src/bundler/reputation-store.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const network = 'ethereum/devnet';
const staked = '0x00000000000000000000000000000000000000a1';
const unstaked = '0x00000000000000000000000000000000000000a2';
const paymaster = '0x00000000000000000000000000000000000000b1';

describe('the reputation counters the bundle steps write', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  it("counts a bundle's included ops for senders that have counters, once per op, and leaves the others without", async () => {
    const store = createReputationStore(database.db);
    await store.set(network, [{ address: staked, opsSeen: 3, opsIncluded: 0 }]);
    await store.countIncludedIfKnown(network, [staked, staked.toUpperCase().replace('0X', '0x'), unstaked]);
    expect(await store.get(network, staked)).toMatchObject({ opsSeen: 3, opsIncluded: 2 });
    expect((await store.list(network)).map((entry) => entry.address)).toEqual([staked]);
  });

  it('takes back a seen count, never under 0, and bans an entity at 10,000 seen and 0 included', async () => {
    const store = createReputationStore(database.db);
    await store.set(network, [{ address: paymaster, opsSeen: 1, opsIncluded: 4 }]);
    await store.unsee(network, [paymaster]);
    await store.unsee(network, [paymaster]);
    expect(await store.get(network, paymaster)).toMatchObject({ opsSeen: 0, opsIncluded: 4 });
    await store.crashed(network, paymaster);
    expect(await store.get(network, paymaster)).toMatchObject({ opsSeen: 10_000, opsIncluded: 0, status: 'banned' });
  });
});
