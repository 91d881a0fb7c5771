import { type Static, Type } from 'typebox';
import { StringEnum } from '../http/schemas.ts';

/**
 * JSON Schemas of a key's `restrictions` and `limits` as the admin API and the dashboard take them.
 * They fix the shape and sizes; what a schema cannot say (a CIDR's prefix, an origin's form, a known
 * method, a PEM that parses) is checked by check-key-settings.ts, which names the bad entry.
 */

/** Every list of a key's restrictions: enough for a large allowlist, small enough to check per request. */
export const maxRestrictionEntries = 1000;
/** Public keys for signed requests: a few in use plus the next ones during a key rollover. */
export const maxJwtPublicKeys = 100;

const entryList = (maxLength: number, description: string) =>
  Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength }), { maxItems: maxRestrictionEntries, description }));

export const JwtPublicKeySchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 200, description: "Matched against the token's `kid` header" }),
    alg: StringEnum(['RS256', 'ES256'] as const),
    pem: Type.String({ minLength: 1, maxLength: 16_384, description: 'SPKI PEM (-----BEGIN PUBLIC KEY-----)' }),
  },
  { additionalProperties: false },
);

export const KeyRestrictionsSchema = Type.Object(
  {
    origins: entryList(300, 'Origins allowed to use the key: `https://app.example.com` or `https://*.example.org`'),
    ips: entryList(64, 'Client addresses or CIDR ranges (IPv4 and IPv6)'),
    contracts: entryList(42, 'Contract addresses the key may touch (0x + 40 hex digits)'),
    methods: entryList(100, 'JSON-RPC methods the key may call'),
    jwt: Type.Optional(
      Type.Object(
        {
          required: Type.Optional(Type.Boolean({ description: 'Every request needs a signed JWT besides the key' })),
          public_keys: Type.Optional(Type.Array(JwtPublicKeySchema, { maxItems: maxJwtPublicKeys })),
          single_use: Type.Optional(
            Type.Boolean({ description: 'Each token is taken once: it needs a `jti`, remembered until its `exp`' }),
          ),
          bind_to_key: Type.Optional(Type.Boolean({ description: "A token's `sub` (or a `key` claim) must be this key's id" })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'Where and on what the key may be used; an absent or empty list means no restriction of that kind',
  },
);

/** Restrictions as given: `jwt.required` defaults to false, `jwt.public_keys` to none. */
export type KeyRestrictionsInput = Static<typeof KeyRestrictionsSchema>;

// A type list, not anyOf: with Fastify's type coercion an anyOf would turn null into 0.
const KeyLimitValue = Type.Unsafe<number | null>({
  type: ['integer', 'null'],
  minimum: 1,
  maximum: 1_000_000_000,
  description: "null or absent: the account's limit alone",
});

export const KeyLimitsSchema = Type.Object(
  { rps: Type.Optional(KeyLimitValue), rpd: Type.Optional(KeyLimitValue), cups: Type.Optional(KeyLimitValue) },
  { additionalProperties: false, description: "The key's own limits, enforced under its account's (the lower wins)" },
);

/** As stored and shown: PEMs included (public keys, not secrets). */
export const KeyRestrictionsView = Type.Object({
  origins: Type.Optional(Type.Array(Type.String())),
  ips: Type.Optional(Type.Array(Type.String())),
  contracts: Type.Optional(Type.Array(Type.String())),
  methods: Type.Optional(Type.Array(Type.String())),
  jwt: Type.Optional(
    Type.Object({
      required: Type.Boolean(),
      single_use: Type.Optional(Type.Boolean()),
      bind_to_key: Type.Optional(Type.Boolean()),
      public_keys: Type.Array(
        Type.Object({ id: Type.String(), alg: StringEnum(['RS256', 'ES256'] as const), pem: Type.String() }),
      ),
    }),
  ),
});

export const KeyLimitsView = Type.Object({
  rps: Type.Optional(Type.Integer()),
  rpd: Type.Optional(Type.Integer()),
  cups: Type.Optional(Type.Integer()),
});
