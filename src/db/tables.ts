import type { AccountsTable, ApiKeyEventsTable, ApiKeysTable, UsedJwtIdsTable } from './tables/accounts.ts';
import type { BundlerReputationTable, UserOperationsTable, WalletsTable } from './tables/bundler.ts';
import type {
  ChainEventsTable,
  IndexBackfillsTable,
  IndexBlocksTable,
  IndexOriginsTable,
  IndexProgressTable,
  IndexTransactionsTable,
  InternalTransfersTable,
  NativeTransfersTable,
  NftAirdropsTable,
  NftHolderCollectionsTable,
  NftMetadataTable,
  NftOwnershipTable,
  NftTransfersTable,
  TokenHoldingsTable,
  TokenMetadataTable,
  TokenTransfersTable,
} from './tables/chain-index.ts';
import type {
  AccountMembersTable,
  EmailVerificationsTable,
  InvitationsTable,
  MailRequestsTable,
  SessionsTable,
  SignInFailuresTable,
  UsersTable,
  UserTokensTable,
} from './tables/dashboard.ts';
import type { GasPoliciesTable, GasSponsorshipsTable } from './tables/gas.ts';
import type { ContractSpamTable, SpamListsTable, SpamReportsTable } from './tables/spam.ts';
import type { UsageMinutesTable } from './tables/usage.ts';
import type {
  WebhookAddressesTable,
  WebhookAttemptsTable,
  WebhookDailyUsageTable,
  WebhookDeliveriesTable,
  WebhookEventsTable,
  WebhookMatcherCursorTable,
  WebhookPausedNoticesTable,
  WebhooksTable,
} from './tables/webhooks.ts';

/** Every table Kysely knows, by name; each area's columns are in its own file under tables/. */
export interface Tables {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  api_key_events: ApiKeyEventsTable;
  used_jwt_ids: UsedJwtIdsTable;
  index_blocks: IndexBlocksTable;
  index_transactions: IndexTransactionsTable;
  token_transfers: TokenTransfersTable;
  nft_transfers: NftTransfersTable;
  nft_airdrops: NftAirdropsTable;
  native_transfers: NativeTransfersTable;
  internal_transfers: InternalTransfersTable;
  token_holdings: TokenHoldingsTable;
  nft_ownership: NftOwnershipTable;
  nft_holder_collections: NftHolderCollectionsTable;
  token_metadata: TokenMetadataTable;
  nft_metadata: NftMetadataTable;
  chain_events: ChainEventsTable;
  index_progress: IndexProgressTable;
  index_origins: IndexOriginsTable;
  index_backfills: IndexBackfillsTable;
  webhooks: WebhooksTable;
  webhook_addresses: WebhookAddressesTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_daily_usage: WebhookDailyUsageTable;
  webhook_matcher_cursor: WebhookMatcherCursorTable;
  webhook_paused_notices: WebhookPausedNoticesTable;
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
  contract_spam: ContractSpamTable;
  spam_lists: SpamListsTable;
  spam_reports: SpamReportsTable;
}
