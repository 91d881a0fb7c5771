import { isDeepStrictEqual } from 'node:util';
import type { ApiKeyRow } from '../db/tables/accounts.ts';
import type { KeyRestrictions } from '../keys/key-settings.ts';
import type { KeyActor, KeyEventInput } from './key-change-store.ts';

/**
 * What the audit trail records of each change. Never a secret (keys by prefix only); public keys by id
 * only (a PEM is long and says nothing to a reader).
 */

const listKinds = ['origins', 'ips', 'contracts', 'methods'] as const;

/** Restrictions as a creation records them: the whole of them, public keys by id. */
export function restrictionsForAudit(restrictions: KeyRestrictions): Record<string, unknown> {
  const { jwt, ...lists } = restrictions;
  if (!jwt) return lists;
  const { public_keys, ...flags } = jwt;
  return { ...lists, jwt: { ...flags, public_key_ids: public_keys.map((key) => key.id) } };
}

/**
 * How restrictions changed, per kind: the entries added and removed (a 1,000-entry list that gained one
 * origin records that origin), `jwt.required` when it changed, public keys added, removed or replaced by id.
 */
export function restrictionChanges(before: KeyRestrictions, after: KeyRestrictions): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const kind of listKinds) {
    const was = new Set(before[kind] ?? []);
    const is = new Set(after[kind] ?? []);
    const added = [...is].filter((entry) => !was.has(entry));
    const removed = [...was].filter((entry) => !is.has(entry));
    if (added.length > 0 || removed.length > 0)
      changes[kind] = { ...(added.length > 0 ? { added } : {}), ...(removed.length > 0 ? { removed } : {}) };
  }
  const jwt = jwtChanges(before.jwt, after.jwt);
  if (jwt) changes.jwt = jwt;
  return changes;
}

function jwtChanges(before: KeyRestrictions['jwt'], after: KeyRestrictions['jwt']): Record<string, unknown> | undefined {
  const wasKeys = new Map((before?.public_keys ?? []).map((key) => [key.id, key]));
  const isKeys = new Map((after?.public_keys ?? []).map((key) => [key.id, key]));
  const added = [...isKeys.keys()].filter((id) => !wasKeys.has(id));
  const removed = [...wasKeys.keys()].filter((id) => !isKeys.has(id));
  const replaced = [...isKeys.keys()].filter((id) => wasKeys.has(id) && !isDeepStrictEqual(wasKeys.get(id), isKeys.get(id)));
  const flag = (name: 'required' | 'single_use' | 'bind_to_key') =>
    (before?.[name] ?? false) !== (after?.[name] ?? false) ? { [name]: after?.[name] ?? false } : {};
  const required = { ...flag('required'), ...flag('single_use'), ...flag('bind_to_key') };
  const keys = {
    ...(added.length > 0 ? { added } : {}),
    ...(removed.length > 0 ? { removed } : {}),
    ...(replaced.length > 0 ? { replaced } : {}),
  };
  const changes = { ...required, ...(Object.keys(keys).length > 0 ? { public_key_ids: keys } : {}) };
  return Object.keys(changes).length > 0 ? changes : undefined;
}

/** A PATCH: the fields whose value changed, the new value of each (restrictions as what was added and removed). */
export function restrictEvent(actor: KeyActor, before: ApiKeyRow, after: ApiKeyRow): KeyEventInput {
  const fields = ['name', 'scopes', 'restrictions', 'limits'] as const;
  const changed = fields.filter((field) => !isDeepStrictEqual(before[field], after[field]));
  const details: Record<string, unknown> = { changed };
  for (const field of changed)
    details[field] = field === 'restrictions' ? restrictionChanges(before.restrictions, after.restrictions) : after[field];
  return { action: 'restrict', actor, details };
}

export function rotateEvent(actor: KeyActor, graceS: number, after: ApiKeyRow): KeyEventInput {
  return {
    action: 'rotate',
    actor,
    details: {
      grace_s: graceS,
      previous_key_expires_at: after.previous_key_expires_at?.toISOString() ?? null,
      prefix: after.prefix,
    },
  };
}
