import type { Network } from '../chains/registry.ts';
import { invalidRequest } from '../core/errors.ts';
import { parseEventType, variantBName } from './event-types.ts';
import { type NftFilterPair, nftFilterKeysOf, parseNftFilterPair } from './nft-filter-pairs.ts';
import type { CreateWebhookInput } from './service.ts';
import { maxWebhookAddresses, parseAddress } from './webhook-config.ts';
import type { WebhookView } from './webhook-view.ts';

/** Alchemy's prefix of a network name for each chain it names differently (`MATIC_AMOY`, `ARB_SEPOLIA`). */
const alchemyChainPrefixes: Record<string, string> = {
  ethereum: 'ETH',
  polygon: 'MATIC',
  arbitrum: 'ARB',
  optimism: 'OPT',
  base: 'BASE',
};

/**
 * A network as Alchemy's Notify API names it: `ETH_MAINNET`, `BASE_SEPOLIA`, `MATIC_AMOY`; a network
 * Alchemy does not serve is named the same way (`ETH_DEVNET`).
 */
export function alchemyNetworkName(chain: string, network: string): string {
  return `${alchemyChainPrefixes[chain] ?? chain.toUpperCase()}_${network.toUpperCase()}`;
}

/**
 * The network a create-webhook body names, among those this service serves; a name it does not serve
 * is a 400 naming `network` and listing the names it does. Without one, the chain is ethereum and the
 * key's default network of it (as `POST /v1/webhooks` without `network`).
 */
export function alchemyNetworkField(networks: readonly Network[], name: string | undefined): { chain: string; network?: string } {
  if (name === undefined) return { chain: 'ethereum' };
  const found = networks.find(
    (candidate) =>
      candidate.config.kind === 'evm' && alchemyNetworkName(candidate.config.chain, candidate.config.network) === name,
  );
  if (!found) {
    const served = networks
      .filter((candidate) => candidate.config.kind === 'evm')
      .map((candidate) => alchemyNetworkName(candidate.config.chain, candidate.config.network));
    throw invalidRequest('network', `this service has no network '${name}'; it serves ${served.join(', ')}`);
  }
  return { chain: found.config.chain, network: found.config.network };
}

/** The Alchemy webhook types with a Blockyard type that means the same, and why the others have none. */
const unsupportedTypes: Record<string, string> = {
  MINED_TRANSACTION:
    "Alchemy's MINED_TRANSACTION follows an Alchemy app's sent transactions; here mined_transaction watches listed hashes (POST /v1/webhooks)",
  DROPPED_TRANSACTION: 'dropped transactions are not watched here',
  GRAPHQL: 'custom GraphQL webhooks are not built here; POST /v1/webhooks has log and address filters',
  NFT_METADATA_UPDATE: 'NFT metadata updates are not watched here',
};

export interface AlchemyCreateWebhookBody {
  network?: string;
  webhook_type: string;
  webhook_url: string;
  addresses?: string[];
  nft_filters?: NftFilterPair[];
}

/**
 * `POST /api/create-webhook`'s body as a `POST /v1/webhooks` input: ADDRESS_ACTIVITY is
 * address_activity over `addresses`; NFT_ACTIVITY is nft_transfer over `nft_filters`, which must be
 * contracts alone or every listed contract with every listed token id (nft-filter-pairs.ts); each bad
 * value is a 400 naming it as the body spells it (`addresses[2]`, `nft_filters[1].token_id`).
 */
export function createWebhookInput(body: AlchemyCreateWebhookBody, networks: readonly Network[]): CreateWebhookInput {
  const place = alchemyNetworkField(networks, body.network);
  const base = { url: body.webhook_url, url_field: 'webhook_url', ...place };
  if (body.webhook_type === 'ADDRESS_ACTIVITY') {
    if (body.nft_filters !== undefined) throw invalidRequest('nft_filters', 'applies to NFT_ACTIVITY, not ADDRESS_ACTIVITY');
    const addresses = body.addresses ?? [];
    if (addresses.length === 0) throw invalidRequest('addresses', 'ADDRESS_ACTIVITY needs at least one address');
    if (addresses.length > maxWebhookAddresses) {
      throw invalidRequest('addresses', `has ${addresses.length} addresses; at most ${maxWebhookAddresses}`);
    }
    const checked = addresses.map((address, index) => parseAddress(address, `addresses[${index}]`));
    return { ...base, event_type: 'address_activity', config: { addresses: checked }, payload_format: 'camelCase' };
  }
  if (body.webhook_type === 'NFT_ACTIVITY') {
    if (body.addresses !== undefined) throw invalidRequest('addresses', 'applies to ADDRESS_ACTIVITY, not NFT_ACTIVITY');
    return { ...base, event_type: 'nft_transfer', config: nftFilterConfig(body.nft_filters ?? []), payload_format: 'camelCase' };
  }
  const why = unsupportedTypes[body.webhook_type];
  throw invalidRequest(
    'webhook_type',
    why ? `${body.webhook_type}: ${why}` : `unknown webhook type '${body.webhook_type}'; one of ADDRESS_ACTIVITY, NFT_ACTIVITY`,
  );
}

function nftFilterConfig(filters: readonly NftFilterPair[]): { contracts: string[]; token_ids?: string[] } {
  if (filters.length === 0) throw invalidRequest('nft_filters', 'NFT_ACTIVITY needs at least one filter');
  const pairs = filters.map((filter, index) => parseNftFilterPair(filter, `nft_filters[${index}]`));
  return nftFilterKeysOf(pairs, 'nft_filters');
}

/** A webhook as the Notify API answers it (`team-webhooks`, `create-webhook`), the signing key only at creation. */
export function alchemyWebhook(webhook: WebhookView) {
  const type = parseEventType(webhook.event_type);
  return {
    id: webhook.id,
    network: alchemyNetworkName(webhook.chain, webhook.network),
    webhook_type: type ? variantBName(type) : webhook.event_type.toUpperCase(),
    webhook_url: webhook.url,
    is_active: webhook.status === 'active',
    time_created: Date.parse(webhook.created_at),
    version: 'V2',
    ...(webhook.signing_secret === undefined ? {} : { signing_key: webhook.signing_secret }),
  };
}
