import { Type } from 'typebox';
import { StringEnum } from '../http/schemas.ts';

export const CreateWalletBody = Type.Object(
  {
    owner: Type.String({ minLength: 1, maxLength: 100, description: 'The owner EOA (signs the wallet’s UserOperations)' }),
    chain: Type.String({ minLength: 1, maxLength: 63 }),
    network: Type.Optional(
      Type.String({ minLength: 1, maxLength: 63, description: "Default: the key's mainnet (live) or first testnet (test)" }),
    ),
    salt: Type.Optional(
      // anyOf, not a type list: Ajv's strict mode refuses a union of types without allowUnionTypes.
      Type.Unsafe<string | number>({
        anyOf: [
          { type: 'string', maxLength: 80 },
          { type: 'integer', minimum: 0 },
        ],
        description: 'uint256 as a decimal string or 0x hex (default 0): another salt, another wallet of the same owner',
      }),
    ),
    entry_point_version: Type.Optional(
      StringEnum(['0.7', '0.8', '0.6'] as const, { description: 'EntryPoint v0.7 (default), v0.8 or v0.6' }),
    ),
  },
  { additionalProperties: false },
);

const ListItemFields = {
  address: Type.String(),
  owner: Type.String(),
  chain: Type.String(),
  network: Type.String(),
  status: StringEnum(['counterfactual', 'deployed'] as const),
  factory: Type.String(),
  entry_point: Type.String(),
  entry_point_version: Type.String(),
  salt: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
};

export const WalletListItem = Type.Object(ListItemFields);

export const Wallet = Type.Object({
  ...ListItemFields,
  nonce: Type.Unsafe<number | string>({ type: ['integer', 'string'], description: 'EntryPoint nonce (key 0)' }),
  deployed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  deploy_tx: Type.Union([Type.String(), Type.Null()]),
});

export const WalletParams = Type.Object({ address: Type.String({ minLength: 1, maxLength: 100 }) });

export const WalletQuery = Type.Object(
  {
    chain: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
    network: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
  },
  { additionalProperties: false },
);

export const ListWalletsQuery = Type.Object(
  {
    page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
    chain: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
  },
  { additionalProperties: false },
);
