/**
 * What a key carries besides its scopes (issue 24), stored as given by the admin API and the
 * dashboard. An absent or empty list means no restriction of that kind.
 */
export interface KeyRestrictions {
  /** Exact origins (`https://app.example.com`) or one leading wildcard label (`https://*.example.org`). */
  origins?: string[];
  /** IPv4/IPv6 addresses or CIDR ranges of the client (src/http/client-address.ts decides which address that is). */
  ips?: string[];
  /** Contract addresses the key's JSON-RPC calls may touch (`to`, log `address`). */
  contracts?: string[];
  /** JSON-RPC method names the key may call. */
  methods?: string[];
  /** Signed requests: `Authorization: Bearer <JWT>` besides the key, signed by one of these public keys. */
  /**
   * Signed requests: `single_use` (each token's `jti` once, until its `exp`) and `bind_to_key` (the
   * token's `sub` or `key` claim is the key's id) are set only when true.
   */
  jwt?: { required: boolean; public_keys: JwtPublicKey[]; single_use?: true; bind_to_key?: true };
}

export interface JwtPublicKey {
  /** Matched against the token's `kid` header. */
  id: string;
  alg: 'RS256' | 'ES256';
  /** SPKI PEM (`-----BEGIN PUBLIC KEY-----`). */
  pem: string;
}

/** The key's own limits, enforced under its account's (the lower wins); absent: the account's alone. */
export interface KeyLimits {
  rps?: number | null;
  rpd?: number | null;
  cups?: number | null;
}
