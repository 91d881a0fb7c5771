import { Type } from 'typebox';
import { StringEnum } from '../http/schemas.ts';
import { deliveryLogStatuses } from './delivery-log.ts';
import { acceptedEventTypeNames } from './event-types.ts';

const IdDescription = 'Webhook id (wh_…)';
export const WebhookIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: IdDescription }) });
export const DeliveryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100, description: IdDescription }),
  delivery_id: Type.String({ minLength: 1, maxLength: 100, description: 'Delivery id (dlv_…)' }),
});

const ConfigSchema = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'Filter: addresses, contracts, from, to, min_value, token_ids, tx_hashes, topics, function_selectors, confirmations (which apply depends on event_type; see docs/webhooks.md)',
});

export const CreateWebhookBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'HTTPS endpoint (development mode also allows http and loopback)',
    }),
    chain: Type.String({ minLength: 1, maxLength: 63 }),
    network: Type.Optional(
      Type.String({ minLength: 1, maxLength: 63, description: "Default: the key's mainnet (live) or first testnet (test)" }),
    ),
    event_type: StringEnum(acceptedEventTypeNames, { description: "Variant A's or Variant B's name; stored in lower case" }),
    config: Type.Optional(ConfigSchema),
    payload_format: Type.Optional(
      StringEnum(['snake_case', 'camelCase'] as const, {
        description: 'snake_case: Variant A body (default); camelCase: Variant B',
      }),
    ),
  },
  { additionalProperties: false },
);

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    status: Type.Optional(StringEnum(['active', 'paused'] as const)),
    config: Type.Optional(ConfigSchema),
  },
  { additionalProperties: false },
);

export const Webhook = Type.Object({
  id: Type.String(),
  url: Type.String(),
  chain: Type.String(),
  network: Type.String(),
  event_type: Type.String(),
  config: Type.Record(Type.String(), Type.Unknown(), {
    description: 'The filter; addresses inline only when there are at most 1,000 (see address_count)',
  }),
  address_count: Type.Integer({
    description: 'Addresses watched; read them with GET /v1/webhooks/{id}/addresses',
  }),
  payload_format: Type.String(),
  status: StringEnum(['active', 'paused', 'disabled'] as const),
  status_reason: Type.Union([Type.String(), Type.Null()]),
  signing_secret: Type.Optional(Type.String({ description: 'whsec_…: only in the creation and rotation answers' })),
  previous_secret_expires_at: Type.Optional(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

/** A webhook in a list: spec section 2 names exactly these fields (no config, no signing secret). */
export const WebhookListItem = Type.Object({
  id: Type.String(),
  url: Type.String(),
  chain: Type.String(),
  event_type: Type.String(),
  status: StringEnum(['active', 'paused', 'disabled'] as const),
  created_at: Type.String({ format: 'date-time' }),
});

export const ListWebhooksQuery = Type.Object(
  {
    page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
    status: Type.Optional(StringEnum(['active', 'paused', 'disabled'] as const)),
  },
  { additionalProperties: false },
);

export const DeliveriesQuery = Type.Object(
  {
    page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
    status: Type.Optional(StringEnum(deliveryLogStatuses)),
  },
  { additionalProperties: false },
);

const Attempt = Type.Object({
  attempt: Type.Integer(),
  attempted_at: Type.String(),
  request: Type.Object({ url: Type.String(), headers: Type.Record(Type.String(), Type.String()), body: Type.String() }),
  response: Type.Object({ status: Type.Union([Type.Integer(), Type.Null()]), body: Type.Union([Type.String(), Type.Null()]) }),
  latency_ms: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
});

export const Delivery = Type.Object({
  id: Type.String(),
  event_id: Type.String(),
  event_type: Type.String(),
  kind: Type.String(),
  status: StringEnum(deliveryLogStatuses),
  attempt_count: Type.Integer(),
  next_attempt_at: Type.Union([Type.String(), Type.Null()]),
  note: Type.Union([Type.String(), Type.Null()]),
  block_number: Type.Union([Type.Integer(), Type.Null()]),
  removed: Type.Boolean(),
  test: Type.Boolean(),
  created_at: Type.String(),
  updated_at: Type.String(),
  attempts: Type.Array(Attempt),
});

export const ReplayBody = Type.Object(
  {
    from_block: Type.Optional(Type.Integer({ minimum: 0 })),
    to_block: Type.Optional(Type.Integer({ minimum: 0, description: 'Default: the newest indexed block' })),
    since: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'ISO 8601 time: every block from then on' })),
  },
  { additionalProperties: false, description: '{from_block, to_block} or {since}' },
);

export const AdminWebhookBody = Type.Object(
  {
    status: StringEnum(['active', 'paused', 'disabled'] as const),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

const AddressList = (description: string) => Type.Optional(Type.Array(Type.Unknown(), { description }));

export const UpdateAddressesBody = Type.Object(
  {
    add: AddressList('Addresses to watch, at most 1,000 a call; one already watched is fine'),
    remove: AddressList('Addresses to stop watching, at most 1,000 a call; one not watched is fine'),
  },
  { additionalProperties: false },
);

export const AddressesQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
    cursor: Type.Optional(Type.String({ maxLength: 100, description: 'next_cursor of the previous page' })),
  },
  { additionalProperties: false },
);

export const AddressCount = Type.Object({ id: Type.String(), address_count: Type.Integer() });

export const AddressPage = Type.Object({
  addresses: Type.Array(Type.String(), { description: 'Lower-case, in address order' }),
  total: Type.Integer(),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null: last page' }),
});

/** Alchemy Notify's `PATCH /api/update-webhook-addresses` body. */
export const AlchemyUpdateAddressesBody = Type.Object(
  {
    webhook_id: Type.String({ minLength: 1, maxLength: 100 }),
    addresses_to_add: AddressList('At most 1,000 a call'),
    addresses_to_remove: AddressList('At most 1,000 a call'),
  },
  { additionalProperties: false },
);

/** Alchemy Notify's `PUT /api/update-webhook-addresses`: the whole new list. */
export const AlchemyReplaceAddressesBody = Type.Object(
  {
    webhook_id: Type.String({ minLength: 1, maxLength: 100 }),
    addresses: AddressList('The whole new list, at most 100,000; an empty list watches no address'),
  },
  { additionalProperties: false },
);

/** Alchemy Notify's `GET /api/webhook-addresses` query. */
export const AlchemyAddressesQuery = Type.Object(
  {
    // Required, checked by the handler: a bad limit beside a missing id is named first.
    webhook_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Required: the webhook (wh_…)' })),
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
    after: Type.Optional(Type.String({ maxLength: 100, description: 'pagination.cursors.after of the previous page' })),
  },
  { additionalProperties: false },
);

const AlchemyNetworkName = Type.String({
  minLength: 1,
  maxLength: 63,
  description:
    "Alchemy's name of the network (ETH_MAINNET, BASE_SEPOLIA; ETH_DEVNET for the devnet); default: ethereum's default network for the key",
});

/** One of Alchemy's NFT filters: a contract, or one token of it. */
const AlchemyNftFilter = Type.Object(
  {
    contract_address: Type.String(),
    token_id: Type.Optional(Type.String({ description: 'Decimal or 0x hex' })),
  },
  { additionalProperties: false },
);

/** Alchemy Notify's `POST /api/create-webhook` body. */
export const AlchemyCreateWebhookBody = Type.Object(
  {
    network: Type.Optional(AlchemyNetworkName),
    webhook_type: Type.String({ minLength: 1, maxLength: 63, description: 'ADDRESS_ACTIVITY or NFT_ACTIVITY' }),
    webhook_url: Type.String({ minLength: 1, maxLength: 2048 }),
    addresses: Type.Optional(
      Type.Array(Type.String(), { description: 'ADDRESS_ACTIVITY: the addresses watched (at most 100,000)' }),
    ),
    nft_filters: Type.Optional(
      Type.Array(AlchemyNftFilter, {
        maxItems: 10_000,
        description: 'NFT_ACTIVITY: contracts, or every listed contract with every listed token id',
      }),
    ),
  },
  { additionalProperties: false },
);

/** Alchemy Notify's `PUT /api/update-webhook` body: turn a webhook on or off. */
export const AlchemyUpdateWebhookBody = Type.Object(
  { webhook_id: Type.String({ minLength: 1, maxLength: 100 }), is_active: Type.Boolean() },
  { additionalProperties: false },
);

/** Alchemy Notify's `DELETE /api/delete-webhook` query. */
export const AlchemyWebhookIdQuery = Type.Object(
  { webhook_id: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);

/** A webhook as the Notify API answers it. */
export const AlchemyWebhook = Type.Object({
  id: Type.String(),
  network: Type.String(),
  webhook_type: Type.String(),
  webhook_url: Type.String(),
  is_active: Type.Boolean(),
  time_created: Type.Integer({ description: 'Unix milliseconds' }),
  version: Type.String(),
  signing_key: Type.Optional(Type.String({ description: 'whsec_…: only in the create-webhook answer' })),
});

/** Alchemy Notify's `PATCH /api/update-webhook-nft-filters` body. */
export const AlchemyUpdateNftFiltersBody = Type.Object(
  {
    webhook_id: Type.String({ minLength: 1, maxLength: 100 }),
    nft_filters_to_add: Type.Optional(Type.Array(AlchemyNftFilter, { maxItems: 1000, description: 'At most 1,000 a call' })),
    nft_filters_to_remove: Type.Optional(Type.Array(AlchemyNftFilter, { maxItems: 1000, description: 'At most 1,000 a call' })),
  },
  { additionalProperties: false },
);

/** Alchemy Notify's `GET /api/webhook-nft-filters` query. */
export const AlchemyNftFiltersQuery = Type.Object(
  {
    // Required, checked by the handler, as on webhook-addresses.
    webhook_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Required: the webhook (wh_…)' })),
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
    after: Type.Optional(Type.String({ pattern: '^[0-9]{1,78}$', description: 'pagination.cursors.after of the previous page' })),
  },
  { additionalProperties: false },
);

export const AlchemyNftFilterPage = Type.Object({
  data: Type.Array(AlchemyNftFilter),
  pagination: Type.Object({
    cursors: Type.Object({ after: Type.Union([Type.String(), Type.Null()]) }),
    total_count: Type.Integer(),
  }),
});
