import { scopes as allScopes, type Scope } from '../auth/scopes.ts';
import { conflict, invalidRequest, notFound } from '../core/errors.ts';
import type { ApiKeyRow, NewApiKeyRow } from '../db/tables/accounts.ts';
import { generateApiKey, type KeyEnvironment } from '../keys/api-key.ts';
import type { KeyLimits, KeyRestrictions } from '../keys/key-settings.ts';
import { checkKeyLimits, checkKeyRestrictions } from './check-key-settings.ts';
import { newId } from './ids.ts';
import { restrictEvent, restrictionsForAudit, rotateEvent } from './key-audit.ts';
import type { KeyActor, KeyChangeRefusal, KeyChangeStore, KeyChanges, KeyEventInput } from './key-change-store.ts';
import type { KeyRestrictionsInput } from './key-settings-schema.ts';
import { type ApiKeyEvent, type ApiKeyInfo, type CreatedApiKey, toKeyEvent, toKeyInfo } from './key-view.ts';
import type { AccountStore, Page } from './store.ts';

/** A rotated-out secret's longest grace: a week, time enough to redeploy every client. */
export const maxRotationGraceS = 7 * 24 * 3600;
export const defaultRotationGraceS = 24 * 3600;

export interface NewKeyInput {
  name: string;
  environment: KeyEnvironment;
  scopes?: Scope[];
  restrictions?: KeyRestrictionsInput;
  limits?: KeyLimits;
}

export interface KeyUpdate {
  name?: string;
  scopes?: Scope[];
  restrictions?: KeyRestrictionsInput;
  limits?: KeyLimits;
}

/** The key half of AccountService (service.ts): every change checked, recorded with its actor, and announced. */
export interface KeyOperations {
  createKey(accountId: string, input: NewKeyInput, actor: KeyActor): Promise<CreatedApiKey>;
  listKeys(accountId: string, page: Page): Promise<{ keys: ApiKeyInfo[]; total: number }>;
  /** A given field replaces the stored one; with `accountId`, only a key of that account (another's is 404). */
  updateKey(id: string, changes: KeyUpdate, actor: KeyActor, accountId?: string): Promise<ApiKeyInfo>;
  /** A new secret (returned once); the old one works `grace_s` more seconds. A revoked key: 409. */
  rotateKey(id: string, input: { grace_s?: number }, actor: KeyActor, accountId?: string): Promise<CreatedApiKey>;
  /** Revokes a key; with `accountId`, only a key of that account (another's is 404). */
  revokeKey(id: string, actor: KeyActor, accountId?: string): Promise<ApiKeyInfo>;
  /** The key's audit trail, newest first. */
  listKeyEvents(id: string, page: Page, accountId?: string): Promise<{ events: ApiKeyEvent[]; total: number }>;
}

export function createKeyOperations(deps: {
  store: AccountStore;
  keyStore: KeyChangeStore;
  /** After a change commits: this process forgets the key at once (others hear the NOTIFY). */
  onKeyChanged?: (keyId: string) => void;
}): KeyOperations {
  const { store, keyStore } = deps;

  function settle(id: string, result: ApiKeyRow | KeyChangeRefusal): ApiKeyRow {
    if (result === 'not_found') throw notFound(`API key '${id}' does not exist`);
    if (result === 'revoked') throw conflict(`API key '${id}' is revoked: it can no longer be changed or rotated`);
    deps.onKeyChanged?.(id);
    return result;
  }

  return {
    async createKey(accountId, input, actor) {
      // An empty list is far more likely a mistake (a blank --scopes) than a wish for a useless key.
      if (input.scopes?.length === 0) throw invalidRequest('scopes', 'name at least one scope, or leave it out for all seven');
      const restrictions = await checkKeyRestrictions(input.restrictions ?? {});
      const limits = checkKeyLimits(input.limits ?? {});
      if (!(await store.findAccount(accountId))) throw notFound(`account '${accountId}' does not exist`);
      const generated = generateApiKey(input.environment);
      const granted = input.scopes ? [...new Set(input.scopes)] : [...allScopes];
      const row = await keyStore.insertKey(
        newKeyRow(accountId, { ...input, scopes: granted, restrictions, limits }, generated),
        createEvent(actor, { ...input, scopes: granted, restrictions, limits }),
      );
      return { ...toKeyInfo(row), key: generated.key };
    },

    async listKeys(accountId, page) {
      if (!(await store.findAccount(accountId))) throw notFound(`account '${accountId}' does not exist`);
      const { rows, total } = await store.listKeys(accountId, page);
      return { keys: rows.map(toKeyInfo), total };
    },

    async updateKey(id, update, actor, accountId) {
      const changes = await storedChanges(update);
      const result = await keyStore.updateKey(id, changes, (before, after) => restrictEvent(actor, before, after), accountId);
      return toKeyInfo(settle(id, result));
    },

    async rotateKey(id, { grace_s = defaultRotationGraceS }, actor, accountId) {
      if (!Number.isInteger(grace_s) || grace_s < 0 || grace_s > maxRotationGraceS)
        throw invalidRequest('grace_s', `must be an integer from 0 to ${maxRotationGraceS} (seconds; 7 days)`);
      const current = await store.findKey(id, accountId);
      if (!current) throw notFound(`API key '${id}' does not exist`);
      const generated = generateApiKey(current.environment);
      const result = await keyStore.rotateKey(
        id,
        { key_hash: generated.hash, prefix: generated.prefix },
        grace_s,
        (after) => rotateEvent(actor, grace_s, after),
        accountId,
      );
      return { ...toKeyInfo(settle(id, result)), key: generated.key };
    },

    async revokeKey(id, actor, accountId) {
      return toKeyInfo(settle(id, await keyStore.revokeKey(id, actor, accountId)));
    },

    async listKeyEvents(id, page, accountId) {
      const found = await keyStore.listKeyEvents(id, page, accountId);
      if (!found) throw notFound(`API key '${id}' does not exist`);
      return { events: found.rows.map(toKeyEvent), total: found.total };
    },
  };
}

async function storedChanges(update: KeyUpdate): Promise<KeyChanges> {
  if (update.scopes?.length === 0) throw invalidRequest('scopes', 'name at least one scope');
  return {
    ...(update.name !== undefined ? { name: update.name } : {}),
    ...(update.scopes !== undefined ? { scopes: JSON.stringify([...new Set(update.scopes)]) } : {}),
    ...(update.restrictions !== undefined
      ? { restrictions: JSON.stringify(await checkKeyRestrictions(update.restrictions)) }
      : {}),
    ...(update.limits !== undefined ? { limits: JSON.stringify(checkKeyLimits(update.limits)) } : {}),
  };
}

interface CheckedNewKey {
  name: string;
  environment: KeyEnvironment;
  scopes: Scope[];
  restrictions: KeyRestrictions;
  limits: KeyLimits;
}

function newKeyRow(accountId: string, key: CheckedNewKey, generated: { prefix: string; hash: string }): NewApiKeyRow {
  return {
    id: newId('key'),
    account_id: accountId,
    name: key.name,
    environment: key.environment,
    prefix: generated.prefix,
    key_hash: generated.hash,
    scopes: JSON.stringify(key.scopes),
    restrictions: JSON.stringify(key.restrictions),
    limits: JSON.stringify(key.limits),
  };
}

function createEvent(actor: KeyActor, key: CheckedNewKey): KeyEventInput {
  const { name, environment, scopes, restrictions, limits } = key;
  return {
    action: 'create',
    actor,
    details: { name, environment, scopes, restrictions: restrictionsForAudit(restrictions), limits },
  };
}
