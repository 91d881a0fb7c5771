import type { Scope } from '../../../src/auth/scopes.ts';

// The shapes of docs/dashboard-api.md and of the /v1 and /admin routes' schemas (src/**/schemas.ts).

export type Role = 'owner' | 'member';
export type Plan = 'free' | 'growth' | 'enterprise';

export interface Limits {
  rps: number | null;
  rpd: number | null;
  cups: number | null;
  webhook_deliveries_per_day: number | null;
}

export interface Session {
  user: { id: string; email: string; operator: boolean };
  account: { id: string; name: string; plan: Plan; role: Role; limits: Limits };
  accounts: { id: string; name: string; role: Role }[];
  csrf_token: string;
}

/** A sign-up or an invitation acceptance waiting for the link mailed to `email`. */
export interface VerificationSent {
  email: string;
}

export type Environment = 'test' | 'live';

export interface ApiKey {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  environment: Environment;
  scopes: Scope[];
  created_at: string;
  revoked_at: string | null;
  last_used_at?: string | null;
  /** `{}` when the key has none (src/keys/key-settings.ts). */
  restrictions?: KeyRestrictions;
  /** The key's own limits under its account's; `{}` when none. */
  limits?: KeyLimits;
  /** When the secret rotated out last stops working; null when there is none. */
  previous_key_expires_at?: string | null;
}
export interface CreatedApiKey extends ApiKey {
  key: string;
}

export type JwtAlgorithm = 'RS256' | 'ES256';
export interface JwtPublicKey {
  id: string;
  alg: JwtAlgorithm;
  pem: string;
}
export interface KeyRestrictions {
  origins?: string[];
  ips?: string[];
  contracts?: string[];
  methods?: string[];
  jwt?: { required: boolean; public_keys: JwtPublicKey[] };
}
export interface KeyLimits {
  rps?: number | null;
  rpd?: number | null;
  cups?: number | null;
}

export type KeyEventAction = 'create' | 'restrict' | 'rotate' | 'revoke';
/** A change to a key (`actor`: `admin`, `user:<userId>` or `cli`). */
export interface KeyEvent {
  id: string;
  key_id: string;
  action: KeyEventAction;
  actor: string;
  details: Record<string, unknown>;
  created_at: string;
}

export interface Member {
  user_id: string;
  email: string;
  role: Role;
  joined_at: string;
}
export interface Invitation {
  id: string;
  email: string;
  role: Role;
  created_at: string;
  expires_at: string;
}
export interface CreatedInvitation {
  id: string;
  email: string;
  role: Role;
  link: string;
  expires_at: string;
}

export type WebhookStatus = 'active' | 'paused' | 'disabled';
export interface Webhook {
  id: string;
  url: string;
  chain: string;
  network: string;
  event_type: string;
  config: Record<string, unknown>;
  /** Addresses watched; `config.addresses` lists them only up to 1,000. */
  address_count?: number;
  payload_format: string;
  status: WebhookStatus;
  status_reason: string | null;
  signing_secret?: string;
  previous_secret_expires_at?: string;
  created_at: string;
  updated_at: string;
  account_id?: string;
}
/** A webhook as `GET /v1/webhooks` lists it (spec section 2: these fields only). */
export type WebhookListItem = Pick<Webhook, 'id' | 'url' | 'chain' | 'event_type' | 'status' | 'created_at'>;
export interface Attempt {
  attempt: number;
  attempted_at: string;
  request: { url: string; headers: Record<string, string>; body: string };
  response: { status: number | null; body: string | null };
  latency_ms: number;
  error: string | null;
}
export type DeliveryStatus = 'pending' | 'paused' | 'succeeded' | 'failed' | 'cancelled';
export interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  kind: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  note: string | null;
  block_number: number | null;
  removed: boolean;
  test: boolean;
  created_at: string;
  updated_at: string;
  attempts: Attempt[];
}

export interface WalletListItem {
  address: string;
  owner: string;
  chain: string;
  network: string;
  status: 'counterfactual' | 'deployed';
  factory: string;
  entry_point: string;
  entry_point_version: string;
  salt: string;
  created_at: string;
}
export interface Wallet extends WalletListItem {
  nonce: number | string;
  deployed_at: string | null;
  deploy_tx: string | null;
}

export interface GasPolicy {
  id: string;
  name: string;
  chain: string;
  network: string;
  rules: Record<string, unknown>;
  status: 'active' | 'paused';
  created_at: string;
  updated_at: string;
}
export interface PolicyUsage {
  policy_id: string;
  ops: number;
  sponsored_usd: string;
  settled_usd: string;
  reserved_usd: string;
  by_sender: { sender: string; ops: number; usd: string }[];
  by_day: { day: string; ops: number; usd: string }[];
}

export type Granularity = 'minute' | 'hour' | 'day';
export type UsageGroupBy = 'key' | 'method' | 'network' | 'status';
export interface UsagePoint {
  t: string;
  requests: number;
  compute_units: number;
  rate_limited: number;
}
export interface Usage {
  from: string;
  to: string;
  granularity: Granularity;
  group_by: UsageGroupBy;
  series: { group: string; points: UsagePoint[] }[];
  totals: { requests: number; compute_units: number; rate_limited: number };
  limits: { rps: number | null; rpd: number | null; cups: number | null };
}

/** One upstream node of a network, as /dashboard/api/chains reports it (src/chains/status-routes.ts). */
export interface ChainUpstream {
  url_host: string;
  name: string;
  healthy: boolean;
  latency_ms: number | null;
  state: string;
  /** ok, lagging, bad_answers, rate_limited, verifying, recovering, unreachable, wrong_chain. */
  condition: string;
  /** Why, with the figures; null when ok. */
  reason: string | null;
  since: string;
  tier: string;
  head: number;
  lag: number;
}

export interface ChainInfo {
  chain: string;
  network: string;
  chain_id: number;
  testnet: boolean;
  kind: string;
  upstreams: ChainUpstream[];
  indexer: { head: number; indexed: number; behind: number; running: boolean } | null;
  bundler: boolean;
}

export interface Account {
  id: string;
  name: string;
  plan: Plan;
  limits: Limits;
  email: string | null;
  created_at: string;
}
