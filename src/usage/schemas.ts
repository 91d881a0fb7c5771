import { Type } from 'typebox';
import { StringEnum } from '../http/schemas.ts';
import { granularities, groupings } from './store.ts';

export const UsageQuerystring = Type.Object(
  {
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Start (inclusive), RFC 3339; default: to - 24 h' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'End (exclusive), RFC 3339; default: now' })),
    granularity: Type.Optional(StringEnum(granularities, { description: 'Bucket size (UTC); default hour' })),
    group_by: Type.Optional(
      StringEnum(groupings, { description: 'One series per key id, method, network or status class; default key' }),
    ),
  },
  { additionalProperties: false },
);

const Counts = {
  requests: Type.Integer(),
  compute_units: Type.Integer({ description: 'As charged: 0 for a request refused by the rate limiter' }),
  rate_limited: Type.Integer({ description: 'Requests answered 429' }),
};

const NullableLimit = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description });

export const UsageResponse = Type.Object({
  from: Type.String({ format: 'date-time', description: 'The start used: from, rounded down to its bucket' }),
  to: Type.String({ format: 'date-time' }),
  granularity: StringEnum(granularities),
  group_by: StringEnum(groupings),
  series: Type.Array(
    Type.Object({
      group: Type.String({ description: "The key id, method, network ('' for none) or status class (2xx, 4xx, 429, 5xx)" }),
      points: Type.Array(Type.Object({ t: Type.String({ format: 'date-time', description: 'Bucket start' }), ...Counts }), {
        description: 'One per bucket of the range, zeros included',
      }),
    }),
    { description: 'Busiest group first' },
  ),
  totals: Type.Object(Counts),
  limits: Type.Object({
    rps: NullableLimit('Requests per second; null: unlimited'),
    rpd: NullableLimit('Requests per UTC day; null: unlimited'),
    cups: NullableLimit('Compute units per second; null: unlimited'),
  }),
  key_limits: Type.Optional(
    Type.Object(
      {
        rps: NullableLimit("Requests per second of the calling key's own; null: only the account's"),
        rpd: NullableLimit("Requests per UTC day of the calling key's own; null: only the account's"),
        cups: NullableLimit("Compute units per second of the calling key's own; null: only the account's"),
      },
      {
        description: "Present when the calling API key has limits of its own (docs/keys-limits.md), enforced under the account's",
      },
    ),
  ),
});
