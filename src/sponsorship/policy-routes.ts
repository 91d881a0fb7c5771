import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { publicClientsByNetwork } from '../chains/public-client.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { invalidRequest, notFound } from '../core/errors.ts';
import type { Database } from '../db/connect.ts';
import { listBodyLimit } from '../http/body-limits.ts';
import { errorResponses } from '../http/schemas.ts';
import { restComputeUnits } from '../limits/compute-units.ts';
import { resolvePolicyNetwork } from './policy-network.ts';
import { parsePolicyRules } from './policy-rules.ts';
import { CreatePolicyBody, GasPolicy, ListPoliciesQuery, PolicyIdParams, UpdatePolicyBody } from './policy-schemas.ts';
import {
  createPolicy,
  deletePolicy,
  type GasPolicyRecord,
  type GasPolicyRow,
  getPolicy,
  listPolicies,
  toPolicyRecord,
  updatePolicy,
} from './policy-store.ts';
import { callRulesEnforcement, unavailableEnforcement } from './trace-capability.ts';

const tags = ['gas'];

function policyName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw invalidRequest('name', 'must not be blank');
  return trimmed;
}

// Another account's policy is as absent as one that never existed.
const noSuchPolicy = (id: string) => notFound(`gas policy '${id}' does not exist`);

type PolicyRouteDeps = { chains: ChainRegistry; db: Database };
type RecordOf = (row: GasPolicyRow) => Promise<GasPolicyRecord>;

/**
 * The record of a policy, with `call_rules_enforcement` when it names contracts or methods: whether
 * its network's node can trace an op's calls (asked at most every minute or ten, trace-capability.ts).
 */
function policyRecords(chains: ChainRegistry): RecordOf {
  const clientOf = publicClientsByNetwork();
  return async (row) => {
    if (!row.rules.allowed_contracts && !row.rules.allowed_methods) return toPolicyRecord(row);
    const network = chains
      .list()
      .find((candidate) => candidate.config.chain === row.chain && candidate.config.network === row.network);
    const enforcement = network
      ? await callRulesEnforcement(network, clientOf(network))
      : unavailableEnforcement(`${row.chain}/${row.network} is not served by this service any more`);
    return toPolicyRecord(row, enforcement);
  };
}

const principalOf = (request: FastifyRequest) => request.principal!;
const cu = (id: string) => ({ computeUnits: restComputeUnits[id], methodName: id, scope: 'gas:manage' as const });

/** `/v1/gas/policies` (scope gas:manage; a policy belongs to the account of the key that created it). */
export async function policyRoutes(app: FastifyInstance, deps: PolicyRouteDeps) {
  const recordOf = policyRecords(deps.chains);
  // Registration order is the OpenAPI document's path order.
  policyCollectionRoutes(app, deps, recordOf);
  singlePolicyRoutes(app, deps.db, recordOf);
}

/** Create a policy and list the account's policies. */
function policyCollectionRoutes(app: FastifyInstance, deps: PolicyRouteDeps, recordOf: RecordOf) {
  const { chains, db } = deps;

  app.post(
    '/v1/gas/policies',
    {
      config: { ...cu('gas.policies.create'), idempotent: true },
      bodyLimit: listBodyLimit,
      schema: {
        summary: 'Create a gas sponsorship policy (status active)',
        tags,
        body: CreatePolicyBody,
        response: { 201: GasPolicy, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const body = request.body as Static<typeof CreatePolicyBody>;
      const name = policyName(body.name);
      const rules = parsePolicyRules(body.rules);
      const network = resolvePolicyNetwork(chains.list(), principal, body.chain, body.network);
      const row = await createPolicy(db, {
        accountId: principal.accountId,
        name,
        chain: network.config.chain,
        network: network.config.network,
        rules,
      });
      return reply.code(201).send(await recordOf(row));
    },
  );

  app.get(
    '/v1/gas/policies',
    {
      config: cu('gas.policies.list'),
      schema: {
        summary: "List the account's gas policies, newest first",
        tags,
        querystring: ListPoliciesQuery,
        response: {
          200: Type.Object({ policies: Type.Array(GasPolicy), page: Type.Integer(), total: Type.Integer() }),
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const query = request.query as Static<typeof ListPoliciesQuery>;
      const { data, page, total } = await listPolicies(db, principal.accountId, query);
      return { policies: await Promise.all(data.map(recordOf)), page, total };
    },
  );
}

/** Read, change and delete one policy by its id. */
function singlePolicyRoutes(app: FastifyInstance, db: Database, recordOf: RecordOf) {
  app.get(
    '/v1/gas/policies/:id',
    {
      config: cu('gas.policies.get'),
      schema: {
        summary: 'Get a gas policy',
        tags,
        params: PolicyIdParams,
        response: { 200: GasPolicy, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const { id } = request.params as Static<typeof PolicyIdParams>;
      const row = await getPolicy(db, principalOf(request).accountId, id);
      if (!row) throw noSuchPolicy(id);
      return recordOf(row);
    },
  );

  app.patch(
    '/v1/gas/policies/:id',
    {
      config: cu('gas.policies.update'),
      bodyLimit: listBodyLimit,
      schema: {
        summary: 'Update name, rules (replacing the whole set) or status (active or paused)',
        tags,
        params: PolicyIdParams,
        body: UpdatePolicyBody,
        response: { 200: GasPolicy, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { id } = request.params as Static<typeof PolicyIdParams>;
      const body = request.body as Static<typeof UpdatePolicyBody>;
      const row = await updatePolicy(db, principal.accountId, id, {
        name: body.name === undefined ? undefined : policyName(body.name),
        rules: body.rules === undefined ? undefined : parsePolicyRules(body.rules),
        status: body.status,
      });
      if (!row) throw noSuchPolicy(id);
      return recordOf(row);
    },
  );

  app.delete(
    '/v1/gas/policies/:id',
    {
      config: cu('gas.policies.delete'),
      schema: {
        summary: 'Delete a gas policy: it sponsors nothing more (a sponsorship signed before stays valid until it expires)',
        tags,
        params: PolicyIdParams,
        response: {
          200: Type.Object({ id: Type.String(), deleted: Type.Boolean() }),
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const { id } = request.params as Static<typeof PolicyIdParams>;
      if (!(await deletePolicy(db, principalOf(request).accountId, id))) throw noSuchPolicy(id);
      return { id, deleted: true };
    },
  );
}
