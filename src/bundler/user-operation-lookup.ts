import type { Kysely } from 'kysely';
import { isHex } from 'viem';
import type { UserOperationRow } from '../db/tables/bundler.ts';
import type { Tables } from '../db/tables.ts';
import { invalidParams } from './rpc-errors.ts';

/** The op of a hash parameter in the mempool's table (any status), undefined when unknown; -32602 for a malformed hash. */
export async function findUserOperation(db: Kysely<Tables>, hash: unknown): Promise<UserOperationRow | undefined> {
  if (typeof hash !== 'string' || !isHex(hash) || hash.length !== 66)
    throw invalidParams('Missing/invalid userOpHash: the parameter must be a UserOperation hash (0x and 64 hex digits)');
  return db.selectFrom('user_operations').selectAll().where('hash', '=', hash.toLowerCase()).executeTakeFirst();
}
