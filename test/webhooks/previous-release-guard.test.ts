import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/core/errors.ts';
import { matchRound } from '../../src/webhooks/matcher.ts';
import { changeWebhookAddresses, replaceWebhookAddresses } from '../../src/webhooks/webhook-addresses.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { insertWebhookRows } from './webhook-rows.ts';

const network = 'ethereum/devnet';
const address = `0x${'a'.repeat(40)}`;

/**
 * An upgrade done in the wrong order (API nodes before the webhook workers) leaves a previous release's
 * matcher running, which reads only `config.addresses`: a list written to `webhook_addresses` would look
 * to it like no filter at all. Address-list writes are refused while such a matcher moves the cursor.
 */
describe("address lists refused while a previous release's matcher runs", () => {
  let t: TestDatabase;
  let nextSeq = 1;

  /** One chain event (a block), so that a matcher has something to move the cursor past. */
  const addEvent = async () => {
    const seq = nextSeq++;
    await sql`insert into chain_events (seq, network, type, block_number, block_hash, data)
              values (${seq}, ${network}, 'block', ${seq}, ${`0x${seq.toString(16).padStart(64, '0')}`}, '{}')`.execute(t.db);
    return seq;
  };
  /** This release's round: the real matcher. */
  const currentRound = () =>
    matchRound({
      db: t.db,
      webhooks: async () => [],
      enricher: { tokens: async () => new Map(), nfts: async () => new Map() },
      logger: pino({ level: 'silent' }),
    });
  /** The previous release's round, as its matcher moved the cursor: `seq` alone. */
  const previousReleaseRound = async (seq: number) => {
    await sql`update webhook_matcher_cursor set seq = ${seq} where name = 'chain_events'`.execute(t.db);
  };
  const write = (webhookId: string) =>
    t.db.transaction().execute((trx) => changeWebhookAddresses(trx, webhookId, { add: [address], remove: [] }));
  const refusal = async (attempt: Promise<unknown>) => {
    const error = await attempt.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isAppError(error), String(error)).toBe(true);
    return error as { status: number; code: string; message: string; headers: Record<string, string> };
  };

  beforeAll(async () => {
    t = await createTestDatabase();
    await insertWebhookRows(t.db, ['wh_1', 'wh_2']);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it("this release's rounds leave the mark unset, and lists are written", async () => {
    await addEvent();
    expect((await currentRound()).ran).toBe(true);
    await addEvent();
    expect((await currentRound()).events).toBe(1);
    const cursor = await t.db.selectFrom('webhook_matcher_cursor').selectAll().executeTakeFirstOrThrow();
    expect(cursor).toMatchObject({ matcher_round: '2', previous_release_moved_at: null });
    expect(await write('wh_1')).toBe(1);
  });

  it("a previous release's round is noted; then every write of a list is refused with a 503 naming the order, and nothing is kept", async () => {
    await previousReleaseRound(await addEvent());
    const cursor = await t.db.selectFrom('webhook_matcher_cursor').selectAll().executeTakeFirstOrThrow();
    expect(cursor.previous_release_moved_at).toBeInstanceOf(Date);

    const refused = await refusal(write('wh_2'));
    expect(refused).toMatchObject({ status: 503, code: 'service_unavailable', headers: { 'retry-after': '30' } });
    expect(refused.message).toContain('upgrade the webhook workers before the API nodes');
    // A new config's list goes the same way (create and PATCH of config call it inside their transaction).
    await refusal(t.db.transaction().execute((trx) => replaceWebhookAddresses(trx, 'wh_2', [address])));
    const kept = await t.db.selectFrom('webhook_addresses').select('webhook_id').where('webhook_id', '=', 'wh_2').execute();
    expect(kept).toEqual([]);
    // A config without a list writes nothing to the table: the previous release reads it the same way.
    await t.db.transaction().execute((trx) => replaceWebhookAddresses(trx, 'wh_2', []));

    // This release's rounds alone do not clear it: the previous one may still take the next round.
    await addEvent();
    await currentRound();
    await refusal(write('wh_2'));
  });

  it('two minutes after its last round, lists are accepted again', async () => {
    // Moving the mark back by hand: the trigger only ever sets it to now().
    await sql`alter table webhook_matcher_cursor disable trigger webhook_matcher_cursor_previous_release`.execute(t.db);
    await sql`update webhook_matcher_cursor set previous_release_moved_at = now() - interval '121 seconds'`.execute(t.db);
    await sql`alter table webhook_matcher_cursor enable trigger webhook_matcher_cursor_previous_release`.execute(t.db);
    expect(await write('wh_2')).toBe(1);
  });
});
