import { Type } from 'typebox';
import { scopes } from '../auth/scopes.ts';
import { StringEnum } from '../http/schemas.ts';
import { plans } from '../limits/plans.ts';
import { KeyLimitsSchema, KeyLimitsView, KeyRestrictionsSchema, KeyRestrictionsView } from './key-settings-schema.ts';

// A type list, not anyOf: with Fastify's type coercion an anyOf would turn null into 0. The cap is a key's own
// (key-settings-schema.ts): past a billion, unlimited (null) is what is meant.
const LimitValue = Type.Unsafe<number | null>({
  type: ['integer', 'null'],
  minimum: 0,
  maximum: 1_000_000_000,
  description: 'null means unlimited',
});

// The operator's caps on gas sponsorship: USD as a decimal string (as in gas policies).
const UsdCapValue = Type.Unsafe<string | null>({
  type: ['string', 'null'],
  pattern: '^[0-9]{1,15}(\\.[0-9]{1,12})?$',
  description: 'USD as a decimal string ("10", "2.50"); null means unlimited',
});

export const Limits = Type.Object(
  {
    rps: Type.Optional(LimitValue),
    rpd: Type.Optional(LimitValue),
    cups: Type.Optional(LimitValue),
    webhook_deliveries_per_day: Type.Optional(LimitValue),
    sponsorship_usd_per_day: Type.Optional(UsdCapValue),
    sponsorship_usd_total: Type.Optional(UsdCapValue),
  },
  { additionalProperties: false },
);

const ResolvedLimits = Type.Object({
  rps: LimitValue,
  rpd: LimitValue,
  cups: LimitValue,
  webhook_deliveries_per_day: LimitValue,
  sponsorship_usd_per_day: Type.Optional(UsdCapValue),
  sponsorship_usd_total: Type.Optional(UsdCapValue),
});

const Email = Type.String({ format: 'email', maxLength: 254, description: 'Where notices (a paused webhook) go' });

export const CreateAccountBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    plan: Type.Optional(StringEnum(plans, { description: 'Default: free (as the CLI)' })),
    limits: Type.Optional(Limits),
    email: Type.Optional(Email),
  },
  { additionalProperties: false },
);

export const UpdateAccountBody = Type.Object(
  {
    email: Type.Optional(
      Type.Unsafe<string | null>({
        type: ['string', 'null'],
        format: 'email',
        maxLength: 254,
        description: 'Where notices (a paused webhook) go; null removes it',
      }),
    ),
    plan: Type.Optional(StringEnum(plans)),
    limits: Type.Optional(
      Type.Object(Limits.properties, {
        additionalProperties: false,
        description: "Replaces the account's overrides of its plan's limits; {} returns to the plan's",
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const Account = Type.Object({
  id: Type.String(),
  name: Type.String(),
  plan: StringEnum(plans),
  limits: ResolvedLimits,
  email: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
});

export const CreateKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    environment: StringEnum(['test', 'live'] as const),
    scopes: Type.Optional(
      Type.Array(StringEnum(scopes), {
        minItems: 1,
        uniqueItems: true,
        description: 'At least one scope; absent: all seven. An empty list is refused (400).',
      }),
    ),
    restrictions: Type.Optional(KeyRestrictionsSchema),
    limits: Type.Optional(KeyLimitsSchema),
  },
  { additionalProperties: false },
);

export const UpdateKeyBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    scopes: Type.Optional(Type.Array(StringEnum(scopes), { minItems: 1, uniqueItems: true })),
    restrictions: Type.Optional(KeyRestrictionsSchema),
    limits: Type.Optional(KeyLimitsSchema),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'A given field replaces the stored one whole (`restrictions: {}` removes every restriction)',
  },
);

export const RotateKeyBody = Type.Object(
  {
    grace_s: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 604_800,
        default: 86_400,
        description: 'Seconds the old secret keeps working (0: stops at once; at most 7 days; default 24 h)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ApiKeyEvent = Type.Object({
  id: Type.String(),
  key_id: Type.String(),
  action: StringEnum(['create', 'restrict', 'rotate', 'revoke'] as const),
  actor: Type.String({ description: '`admin` (admin token), `user:<id>` (dashboard) or `cli`' }),
  details: Type.Record(Type.String(), Type.Unknown()),
  created_at: Type.String({ format: 'date-time' }),
});

export const ApiKeyInfo = Type.Object({
  id: Type.String(),
  account_id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, to recognise it' }),
  environment: StringEnum(['test', 'live'] as const),
  scopes: Type.Array(StringEnum(scopes)),
  restrictions: KeyRestrictionsView,
  limits: KeyLimitsView,
  previous_key_expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'After a rotation: when the rotated-out secret stops (or stopped) working',
  }),
  created_at: Type.String({ format: 'date-time' }),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const CreatedApiKey = Type.Object({
  ...ApiKeyInfo.properties,
  key: Type.String({ description: 'The API key. Shown only in this response (creation or rotation): store it now.' }),
});

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
