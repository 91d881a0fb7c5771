import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { assertNetworkAccess } from '../auth/principal.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/connect.ts';
import { errorResponses } from '../http/schemas.ts';
import { restComputeUnits } from '../limits/compute-units.ts';
import type { SponsorService } from './sponsor-service.ts';

const tags = ['gas'];
const hex = (value: bigint) => `0x${value.toString(16)}`;

const SponsorBody = Type.Object(
  {
    chain: Type.String({ minLength: 1, maxLength: 63 }),
    network: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
    policy_id: Type.String({ minLength: 1, maxLength: 100 }),
    entry_point: Type.Optional(
      Type.String({
        maxLength: 42,
        description: 'EntryPoint address; default: v0.6 for an op with initCode/paymasterAndData, else v0.7',
      }),
    ),
    user_operation: Type.Record(Type.String(), Type.Unknown(), {
      description: 'The op with its final gas fields (the signature may be left out): the paymaster signs over them',
    }),
  },
  { additionalProperties: false },
);

const SponsorshipResult = Type.Object({
  paymaster: Type.Optional(Type.String({ description: 'EntryPoint v0.7: the paymaster (v0.6: inside paymasterAndData)' })),
  paymasterData: Type.Optional(Type.String()),
  paymasterVerificationGasLimit: Type.Optional(Type.String()),
  paymasterPostOpGasLimit: Type.Optional(Type.String()),
  paymasterAndData: Type.Optional(Type.String({ description: 'EntryPoint v0.6: the whole field' })),
  sponsored_gas_usd: Type.String({ description: 'The most the op can cost, reserved against the policy' }),
  valid_until: Type.Integer({ description: 'Unix seconds: after this the signature is void' }),
  user_op_hash: Type.String(),
});

/** `POST /v1/gas/sponsor` (scope gas:manage). */
export async function sponsorRoutes(
  app: FastifyInstance,
  deps: { chains: ChainRegistry; db: Database; sponsors: SponsorService },
) {
  const principalOf = (request: FastifyRequest) => request.principal!;

  app.post(
    '/v1/gas/sponsor',
    {
      config: { computeUnits: restComputeUnits['gas.sponsor'], methodName: 'gas.sponsor', scope: 'gas:manage', idempotent: true },
      schema: {
        summary: "Sponsor a UserOperation under a gas policy: the verifying paymaster's signed data",
        tags,
        body: SponsorBody,
        response: { 200: SponsorshipResult, ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const body = request.body as Static<typeof SponsorBody>;
      const result = await deps.sponsors.sponsor({
        accountId: principal.accountId,
        policyId: body.policy_id,
        chain: body.chain,
        network: body.network,
        entryPoint: body.entry_point,
        userOperation: body.user_operation,
        authorize: (network) => assertNetworkAccess(principal, network.config),
      });
      const common = {
        sponsored_gas_usd: result.sponsoredGasUsd,
        valid_until: result.validUntil,
        user_op_hash: result.userOpHash,
      };
      return result.version !== '0.6'
        ? {
            paymaster: result.paymaster,
            paymasterData: result.paymasterData,
            paymasterVerificationGasLimit: hex(result.paymasterVerificationGasLimit),
            paymasterPostOpGasLimit: hex(result.paymasterPostOpGasLimit),
            ...common,
          }
        : { paymasterAndData: result.paymasterAndData, ...common };
    },
  );
}
