/** The seven scopes of spec section 5; a key created without scopes gets all of them. */
export const scopes = [
  'rpc:read',
  'rpc:write',
  'data:read',
  'wallets:manage',
  'webhooks:manage',
  'gas:manage',
  'bundler:send',
] as const;

export type Scope = (typeof scopes)[number];

export function isScope(value: string): value is Scope {
  return (scopes as readonly string[]).includes(value);
}
