import { Type } from 'typebox';
import { StringEnum } from '../http/schemas.ts';
import { policyRuleNames } from './policy-rules.ts';

const statuses = ['active', 'paused'] as const;

// Checked by parsePolicyRules rather than here, so a bad rule's 400 names its exact path.
const rulesSchema = (what: string) =>
  Type.Record(Type.String(), Type.Unknown(), {
    description: `${what}, each optional: ${policyRuleNames.join(', ')} (see docs/gas-sponsorship.md)`,
  });

const Name = Type.String({ minLength: 1, maxLength: 200 });

export const PolicyIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'Policy id (gp_…)' }) });

export const CreatePolicyBody = Type.Object(
  {
    name: Name,
    chain: Type.String({ minLength: 1, maxLength: 63 }),
    network: Type.Optional(
      Type.String({ minLength: 1, maxLength: 63, description: "Default: the key's mainnet (live) or first testnet (test)" }),
    ),
    rules: rulesSchema('Spending and access rules'),
  },
  { additionalProperties: false },
);

export const UpdatePolicyBody = Type.Object(
  {
    name: Type.Optional(Name),
    rules: Type.Optional(rulesSchema('The new rules, replacing the whole set')),
    status: Type.Optional(StringEnum(statuses)),
  },
  { additionalProperties: false },
);

export const ListPoliciesQuery = Type.Object(
  {
    page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
    chain: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
    status: Type.Optional(StringEnum(statuses)),
  },
  { additionalProperties: false },
);

export const GasPolicy = Type.Object({
  id: Type.String(),
  name: Type.String(),
  chain: Type.String(),
  network: Type.String(),
  rules: Type.Record(Type.String(), Type.Unknown()),
  status: StringEnum(statuses),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  call_rules_enforcement: Type.Optional(
    Type.String({
      description:
        'Only for a policy with allowed_contracts or allowed_methods: "traced" (every call of an op\'s execution is checked, by the node\'s debug_traceCall), "unavailable: …" (the node cannot trace: such ops are refused) or "unknown: …" (the node could not be asked now)',
    }),
  ),
});
