import type { Scope } from '../auth/scopes.ts';
import type { ApiKeyEventRow, ApiKeyRow } from '../db/tables/accounts.ts';
import type { KeyEnvironment } from '../keys/api-key.ts';
import type { KeyLimits, KeyRestrictions } from '../keys/key-settings.ts';

export interface ApiKeyInfo {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  environment: KeyEnvironment;
  scopes: Scope[];
  /** `{}` when the key has none. */
  restrictions: KeyRestrictions;
  /** `{}` when the key has none of its own. */
  limits: KeyLimits;
  /** After a rotation: when the rotated-out secret stops (or stopped) working; null before any. */
  previous_key_expires_at: string | null;
  created_at: string;
  revoked_at: string | null;
}

export interface CreatedApiKey extends ApiKeyInfo {
  /** The whole key: returned by creation and rotation only, never again. */
  key: string;
}

export interface ApiKeyEvent {
  id: string;
  key_id: string;
  action: ApiKeyEventRow['action'];
  actor: string;
  details: Record<string, unknown>;
  created_at: string;
}

export function toKeyInfo(row: ApiKeyRow): ApiKeyInfo {
  return {
    id: row.id,
    account_id: row.account_id,
    name: row.name,
    prefix: row.prefix,
    environment: row.environment,
    scopes: row.scopes as Scope[],
    restrictions: row.restrictions,
    limits: row.limits,
    previous_key_expires_at: row.previous_key_expires_at ? row.previous_key_expires_at.toISOString() : null,
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
  };
}

export function toKeyEvent(row: ApiKeyEventRow): ApiKeyEvent {
  return {
    id: String(row.id),
    key_id: row.key_id,
    action: row.action,
    actor: row.actor,
    details: row.details,
    created_at: row.created_at.toISOString(),
  };
}
