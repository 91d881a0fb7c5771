import { Type } from 'typebox';
import { scopes } from '../auth/scopes.ts';
import { StringEnum } from '../http/schemas.ts';
import { plans } from '../limits/plans.ts';

// A type list, not anyOf: with Fastify's type coercion an anyOf would turn null into 0.
const LimitValue = Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 0, description: 'null means unlimited' });

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
    plan: StringEnum(plans),
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
  },
  { additionalProperties: false },
);

export const ApiKeyInfo = Type.Object({
  id: Type.String(),
  account_id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, to recognise it' }),
  environment: StringEnum(['test', 'live'] as const),
  scopes: Type.Array(StringEnum(scopes)),
  created_at: Type.String({ format: 'date-time' }),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const CreatedApiKey = Type.Object({
  ...ApiKeyInfo.properties,
  key: Type.String({ description: 'The API key. Shown only in this response: store it now.' }),
});

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
