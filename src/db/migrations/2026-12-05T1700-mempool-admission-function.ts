import { type Kysely, sql } from 'kysely';

/**
 * The bundler's mempool admission as one call (src/bundler/mempool-admission.ts): the sender's lock,
 * the count, the conflict read, the replacement, the insert and the entities' counts, in one round
 * trip instead of a client-side transaction's four. Each statement of a PL/pgSQL function takes its own
 * snapshot, so the count after the lock sees every op another send of the sender committed while this
 * one waited (one statement holding both would count from before the wait).
 *
 * The inserted columns are the ones NewMempoolRow carries; a new column there is a new migration that
 * replaces this function. The call is one transaction: if the insert finds the hash live after all,
 * it raises BY001 and the replacement before it is rolled back with it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function bundler_admit_user_operation(
      lock_key text,
      op_row jsonb,
      replacing text,
      conflicts_with text[],
      seen_entities text[],
      sender_limit int
    ) returns table (
      pending int,
      inserted boolean,
      conflict_sender text,
      conflict_factory text,
      conflict_paymaster text
    ) language plpgsql volatile as $$
    declare
      new_op user_operations;
      own_sender text;
      replaced_entities text[];
    begin
      -- The two-key form: a lock space apart from the one-key locks of the leases.
      perform pg_advisory_xact_lock(hashtext('blockyard-bundler-sender'), hashtext(lock_key));
      new_op := jsonb_populate_record(null::user_operations, op_row);
      own_sender := lower(new_op.sender);
      inserted := false;

      select count(*)::int into pending from user_operations o
      where o.network = new_op.network and o.entry_point = new_op.entry_point and o.sender = new_op.sender
        and o.status in ('pending', 'submitted') and o.hash is distinct from replacing;

      if conflicts_with is not null then
        select o.sender, o.factory, o.paymaster into conflict_sender, conflict_factory, conflict_paymaster
        from user_operations o
        where o.network = new_op.network and o.status in ('pending', 'submitted')
          and lower(o.sender) <> own_sender
          and (o.factory = own_sender or o.paymaster = own_sender or lower(o.sender) = any(conflicts_with))
        limit 1;
      end if;

      if conflict_sender is not null or pending >= sender_limit then
        return next;
        return;
      end if;

      -- An op dropped or replaced before (its hash failed or replaced) takes its row over; a live or
      -- included one is not written (already known). Its hash belongs to this sender, whose lock is held.
      if exists (select from user_operations o where o.hash = new_op.hash and o.status not in ('failed', 'replaced')) then
        return next;
        return;
      end if;

      if replacing is not null then
        -- A submitted one is in a bundle on its way: the bundle swaps it for this one (bundle-swap.ts).
        update user_operations o set status = 'replaced', reason = 'replaced by ' || new_op.hash, updated_at = now()
        where o.hash = replacing and o.status in ('pending', 'submitted')
        returning array_remove(array[o.factory, o.paymaster, lower(o.sender)], null) into replaced_entities;
        -- The replaced op no longer counts as seen for its entities (and its sender, when staked).
        if cardinality(replaced_entities) > 0 then
          update bundler_reputation r set ops_seen = greatest(r.ops_seen - 1, 0), updated_at = now()
          where r.network = new_op.network and r.address = any(replaced_entities);
        end if;
      end if;

      insert into user_operations as o (hash, network, entry_point, entry_point_version, sender, nonce, factory,
        paymaster, op, max_fee_per_gas, max_priority_fee_per_gas, status, code_hashes, storage_owners)
      values (new_op.hash, new_op.network, new_op.entry_point, new_op.entry_point_version, new_op.sender,
        new_op.nonce, new_op.factory, new_op.paymaster, new_op.op, new_op.max_fee_per_gas,
        new_op.max_priority_fee_per_gas, new_op.status, new_op.code_hashes, new_op.storage_owners)
      on conflict (hash) do update set network = excluded.network, entry_point = excluded.entry_point,
        entry_point_version = excluded.entry_point_version, sender = excluded.sender, nonce = excluded.nonce,
        factory = excluded.factory, paymaster = excluded.paymaster, op = excluded.op,
        max_fee_per_gas = excluded.max_fee_per_gas, max_priority_fee_per_gas = excluded.max_priority_fee_per_gas,
        status = excluded.status, code_hashes = excluded.code_hashes, storage_owners = excluded.storage_owners,
        reason = null, tx_hash = null, block_number = null, block_hash = null, receipt = null,
        created_at = now(), updated_at = now()
      where o.status in ('failed', 'replaced');
      if not found then
        -- Not expected under the lock; raised, so the whole call (the replacement too) is rolled back.
        raise exception 'user operation % is already known', new_op.hash using errcode = 'BY001';
      end if;

      insert into bundler_reputation as r (network, address, ops_seen, ops_included)
      select new_op.network, address, 1, 0 from unnest(seen_entities) as address
      on conflict (network, address) do update set ops_seen = r.ops_seen + 1, updated_at = now();
      inserted := true;

      -- The commit does not wait for the WAL flush (src/bundler/mempool-admission.ts says why).
      perform set_config('synchronous_commit', 'off', true);
      return next;
    end $$`.execute(db);
}
