import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { KeyLimits, KeyRestrictions } from '../accounts/key-settings.ts';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface AccountsTable {
  id: string;
  name: string;
  plan: 'free' | 'growth' | 'enterprise';
  /** Overrides of the plan's limits; `null` inside means unlimited. */
  limits: ColumnType<Record<string, number | null>, string, string>;
  /** Where notices (a paused webhook) are mailed. */
  email: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  environment: 'test' | 'live';
  /** The key's first characters, for people to recognise it; never enough to use it. */
  prefix: string;
  /** Hex SHA-256 of the whole key: the key itself is never stored. */
  key_hash: string;
  scopes: ColumnType<string[], string, string>;
  created_at: Timestamp;
  revoked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** Where and on what the key may be used (src/accounts/key-settings.ts); `{}`: anywhere. */
  restrictions: ColumnType<KeyRestrictions, string | undefined, string>;
  /** The key's own limits, under its account's; `{}`: the account's only. */
  limits: ColumnType<KeyLimits, string | undefined, string>;
  /** After a rotation: the hash of the secret it replaced, accepted until `previous_key_expires_at`. */
  previous_key_hash: ColumnType<string | null, string | null | undefined, string | null>;
  previous_key_expires_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** The audit trail of a key: every change, who made it and when. */
export interface ApiKeyEventsTable {
  id: Generated<string>;
  key_id: string;
  account_id: string;
  action: 'create' | 'restrict' | 'rotate' | 'revoke';
  /** `admin` (the admin token), `user:<id>` (a dashboard user) or `cli`. */
  actor: string;
  details: ColumnType<Record<string, unknown>, string | undefined, string>;
  created_at: Timestamp;
}

/** int8 and numeric(78,0) columns read back as decimal strings (both drivers); numbers or bigints go in. */
type BigNumeric = ColumnType<string, string | number | bigint, string | number | bigint>;

export interface IndexBlocksTable {
  network: string;
  number: BigNumeric;
  hash: string;
  parent_hash: string;
  timestamp: Timestamp;
  gas_used: BigNumeric;
  tx_count: number;
}

export interface IndexTransactionsTable {
  network: string;
  hash: string;
  block_number: BigNumeric;
  tx_index: number;
  from_address: string;
  to_address: string | null;
  value: BigNumeric;
  /** 1 success, 0 reverted. */
  status: number;
  contract_created: string | null;
}

export interface TokenTransfersTable {
  network: string;
  block_number: BigNumeric;
  log_index: number;
  tx_hash: string;
  contract: string;
  from_address: string;
  to_address: string;
  value: BigNumeric;
}

export type NftStandard = 'ERC721' | 'ERC1155';

export interface NftTransfersTable {
  network: string;
  block_number: BigNumeric;
  log_index: number;
  /** Position inside an ERC-1155 TransferBatch; 0 otherwise. */
  batch_index: number;
  tx_hash: string;
  contract: string;
  standard: NftStandard;
  operator: string | null;
  from_address: string;
  to_address: string;
  token_id: BigNumeric;
  amount: BigNumeric;
}

export interface NativeTransfersTable {
  network: string;
  block_number: BigNumeric;
  tx_hash: string;
  from_address: string;
  to_address: string;
  value: BigNumeric;
}

export interface InternalTransfersTable {
  network: string;
  block_number: BigNumeric;
  tx_hash: string;
  /** Position in the call tree, e.g. '0.2.1'. */
  trace_path: string;
  call_type: string;
  from_address: string;
  to_address: string;
  value: BigNumeric;
}

export interface TokenHoldingsTable {
  network: string;
  holder: string;
  contract: string;
  first_block: BigNumeric;
}

export interface NftOwnershipTable {
  network: string;
  contract: string;
  token_id: BigNumeric;
  owner: string;
  standard: NftStandard;
  amount: BigNumeric;
}

export interface TokenMetadataTable {
  network: string;
  contract: string;
  name: string;
  symbol: string;
  decimals: number;
  fetched_at: Timestamp;
}

export interface NftMetadataTable {
  network: string;
  contract: string;
  token_id: BigNumeric;
  token_uri: string | null;
  name: string | null;
  description: string | null;
  image_url: string | null;
  traits: ColumnType<{ trait_type: string; value: string }[], string, string>;
  metadata_error: string | null;
  fetched_at: Timestamp;
}

export interface ChainEventsTable {
  seq: ColumnType<string, never, never>;
  network: string;
  type: string;
  block_number: BigNumeric;
  block_hash: string;
  removed: ColumnType<boolean, boolean | undefined, boolean>;
  /** On a `removed` event: the seq of the event it takes back. */
  removes_seq: ColumnType<string | null, string | number | null | undefined, string | null>;
  data: ColumnType<Record<string, unknown>, string, string>;
  created_at: Timestamp;
}

export interface IndexProgressTable {
  network: string;
  indexed_block: BigNumeric;
  head_block: BigNumeric;
  final_block: BigNumeric;
  blocks_per_second: number;
  transfers_per_second: number;
  updated_at: Timestamp;
}

type Json<T> = ColumnType<T, string, string>;
type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>;

export interface WebhooksTable {
  id: string;
  account_id: string;
  url: string;
  chain: string;
  network: string;
  event_type: string;
  config: Json<Record<string, unknown>>;
  payload_format: 'snake_case' | 'camelCase';
  status: 'active' | 'paused' | 'disabled';
  status_reason: Nullable<string>;
  disabled_by: Nullable<'endpoint' | 'operator'>;
  secret_ciphertext: string;
  previous_secret_ciphertext: Nullable<string>;
  previous_secret_expires_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  start_seq: BigNumeric;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookEventsTable {
  id: string;
  webhook_id: string;
  source_key: string;
  chain_seq: ColumnType<string | null, string | number | bigint | null | undefined, string | null>;
  event_type: string;
  block_number: ColumnType<string | null, string | number | bigint | null | undefined, string | null>;
  removed: ColumnType<boolean, boolean | undefined, boolean>;
  removes_event_id: Nullable<string>;
  test: ColumnType<boolean, boolean | undefined, boolean>;
  data: Json<Record<string, unknown>>;
  created_at: Timestamp;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';
export type DeliveryKind = 'event' | 'redelivery' | 'replay' | 'test';

export interface WebhookDeliveriesTable {
  position: ColumnType<string, never, never>;
  id: string;
  webhook_id: string;
  account_id: string;
  event_id: string;
  network: string;
  kind: DeliveryKind;
  status: DeliveryStatus;
  attempts: ColumnType<number, number | undefined, number>;
  ready_block: ColumnType<string | null, string | number | bigint | null | undefined, string | number | bigint | null>;
  next_attempt_at: Timestamp;
  note: Nullable<string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookAttemptsTable {
  id: ColumnType<string, never, never>;
  delivery_id: string;
  webhook_id: string;
  attempt: number;
  attempted_at: Timestamp;
  request_url: string;
  request_headers: Json<Record<string, string>>;
  request_body: string;
  response_status: Nullable<number>;
  response_body: Nullable<string>;
  latency_ms: number;
  error: Nullable<string>;
}

export interface WebhookDailyUsageTable {
  account_id: string;
  day: string;
  deliveries: number;
}

export interface WebhookMatcherCursorTable {
  name: string;
  seq: BigNumeric;
}

export interface WalletsTable {
  key_id: string;
  account_id: string;
  network: string;
  address: string;
  chain: string;
  owner: string;
  salt: BigNumeric;
  entry_point_version: '0.6' | '0.7';
  entry_point: string;
  factory: string;
  created_at: Timestamp;
  deployed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  deploy_tx: Nullable<string>;
}

export type UserOperationStatus = 'pending' | 'submitted' | 'included' | 'failed' | 'replaced';

export interface UserOperationsTable {
  hash: string;
  network: string;
  entry_point: string;
  entry_point_version: '0.6' | '0.7';
  sender: string;
  nonce: BigNumeric;
  factory: Nullable<string>;
  paymaster: Nullable<string>;
  op: Json<Record<string, string>>;
  max_fee_per_gas: BigNumeric;
  max_priority_fee_per_gas: BigNumeric;
  status: UserOperationStatus;
  reason: Nullable<string>;
  tx_hash: Nullable<string>;
  block_number: ColumnType<string | null, string | number | bigint | null | undefined, string | number | bigint | null>;
  block_hash: Nullable<string>;
  receipt: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  /** ERC-7562 COD-010: {address: code hash} of the code the first validation ran; null when not traced. */
  code_hashes: ColumnType<Record<string, string> | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface BundlerReputationTable {
  network: string;
  address: string;
  ops_seen: BigNumeric;
  ops_included: BigNumeric;
  updated_at: Timestamp;
}

export interface GasPoliciesTable {
  id: string;
  account_id: string;
  name: string;
  chain: string;
  /** The network's name within the chain ('devnet'), not the 'chain/network' key. */
  network: string;
  /** The parsed rules: `PolicyRules` of src/sponsorship/policy-rules.ts, typed by its store. */
  rules: Json<object>;
  status: 'active' | 'paused';
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Set by DELETE: the row stays for the sponsorships signed under it. */
  deleted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export type GasSponsorshipStatus = 'reserved' | 'settled' | 'released';

export interface GasSponsorshipsTable {
  id: string;
  policy_id: string;
  account_id: string;
  network: string;
  entry_point: string;
  sender: string;
  user_op_hash: string;
  max_cost_wei: BigNumeric;
  /** USD as an exact decimal string. */
  reserved_usd: ColumnType<string, string, string>;
  actual_cost_wei: ColumnType<string | null, string | null | undefined, string | null>;
  actual_usd: ColumnType<string | null, string | null | undefined, string | null>;
  status: GasSponsorshipStatus;
  valid_until: ColumnType<Date, Date, Date>;
  created_at: Timestamp;
  settled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export type MemberRole = 'owner' | 'member';

export interface UsersTable {
  id: string;
  /** Lower-case. */
  email: string;
  /** `scrypt$…` (src/dashboard/passwords.ts); null: signs in by a link only. */
  password_hash: string | null;
  operator: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Timestamp;
}

export interface AccountMembersTable {
  account_id: string;
  user_id: string;
  role: MemberRole;
  created_at: Timestamp;
}

export interface SessionsTable {
  /** Hex SHA-256 of the cookie's token: the token itself is never stored. */
  token_hash: string;
  user_id: string;
  /** The account the dashboard shows; null when the user belongs to none. */
  account_id: string | null;
  csrf_token: string;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
}

export interface InvitationsTable {
  id: string;
  account_id: string;
  email: string;
  role: MemberRole;
  token_hash: string;
  created_by: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  accepted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface UserTokensTable {
  token_hash: string;
  user_id: string;
  purpose: 'password_reset' | 'sign_in';
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface EmailVerificationsTable {
  token_hash: string;
  purpose: 'signup' | 'join';
  email: string;
  password_hash: Nullable<string>;
  account_name: Nullable<string>;
  invitation_id: Nullable<string>;
  user_id: Nullable<string>;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface MailRequestsTable {
  action: 'signup' | 'password_reset';
  email: string;
  ip: string;
  requested_at: Timestamp;
}

export interface SignInFailuresTable {
  email: string;
  ip: string;
  failed_at: Timestamp;
}

export type UserRow = Selectable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type InvitationRow = Selectable<InvitationsTable>;

/** Requests and compute units per account, key, network, method and status class, per minute. */
export interface UsageMinutesTable {
  minute: Timestamp;
  account_id: string;
  key_id: string;
  /** `{chain}/{network}`, or '' when the request had none. */
  network: string;
  /** The JSON-RPC method, or the REST route as `GET /v1/...` (its pattern). */
  method: string;
  status_class: '2xx' | '4xx' | '429' | '5xx';
  requests: BigNumeric;
  compute_units: BigNumeric;
}

export interface Tables {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  api_key_events: ApiKeyEventsTable;
  index_blocks: IndexBlocksTable;
  index_transactions: IndexTransactionsTable;
  token_transfers: TokenTransfersTable;
  nft_transfers: NftTransfersTable;
  native_transfers: NativeTransfersTable;
  internal_transfers: InternalTransfersTable;
  token_holdings: TokenHoldingsTable;
  nft_ownership: NftOwnershipTable;
  token_metadata: TokenMetadataTable;
  nft_metadata: NftMetadataTable;
  chain_events: ChainEventsTable;
  index_progress: IndexProgressTable;
  webhooks: WebhooksTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_daily_usage: WebhookDailyUsageTable;
  webhook_matcher_cursor: WebhookMatcherCursorTable;
  wallets: WalletsTable;
  user_operations: UserOperationsTable;
  bundler_reputation: BundlerReputationTable;
  gas_policies: GasPoliciesTable;
  gas_sponsorships: GasSponsorshipsTable;
  users: UsersTable;
  account_members: AccountMembersTable;
  sessions: SessionsTable;
  invitations: InvitationsTable;
  user_tokens: UserTokensTable;
  sign_in_failures: SignInFailuresTable;
  email_verifications: EmailVerificationsTable;
  mail_requests: MailRequestsTable;
  usage_minutes: UsageMinutesTable;
}

export type UserOperationRow = Selectable<UserOperationsTable>;
export type GasSponsorshipRow = Selectable<GasSponsorshipsTable>;

export type WalletRow = Selectable<WalletsTable>;

export type WebhookRow = Selectable<WebhooksTable>;
export type WebhookEventRow = Selectable<WebhookEventsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;

export type AccountRow = Selectable<AccountsTable>;
export type NewAccountRow = Insertable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKeyRow = Insertable<ApiKeysTable>;
export type ApiKeyEventRow = Selectable<ApiKeyEventsTable>;
export type NewApiKeyEventRow = Insertable<ApiKeyEventsTable>;
