import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { ChainRegistry } from '../chains/registry.ts';
import { notFound } from '../core/errors.ts';
import type { SpamListName } from '../db/tables/spam.ts';
import { parseAddressParam } from '../http/address-param.ts';
import { errorResponses, StringEnum } from '../http/schemas.ts';
import { maxReportSummaries } from './reports.ts';
import type { SpamService } from './service.ts';

const adminSecurity = [{ adminToken: [] }];
const tags = ['admin'];

const NetworkParams = Type.Object({
  chain: Type.String({ description: 'Chain, e.g. ethereum' }),
  network: Type.String({ description: 'Network, e.g. mainnet' }),
});
const EntryParams = Type.Object({
  chain: Type.String(),
  network: Type.String(),
  contract: Type.String({ description: 'Token or NFT contract, 0x-prefixed' }),
});
const Entry = Type.Object({
  contract: Type.String({ description: 'Lower-case' }),
  list: StringEnum(['allow', 'deny'] as const),
  note: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
});
const EntryBody = Type.Object(
  {
    list: StringEnum(['allow', 'deny'] as const, {
      description: 'allow: never spam, whatever the heuristics find; deny: always spam (reason operator_deny)',
    }),
    note: Type.Optional(Type.String({ maxLength: 500, description: 'Why, for the next operator' })),
  },
  { additionalProperties: false },
);

/**
 * Operators: the spam allow and deny lists of a network (docs/spam.md), beside the settings' lists.
 * Registered inside the admin guard's scope.
 */
export async function spamAdminRoutes(app: FastifyInstance, deps: { chains: ChainRegistry; spam: SpamService }) {
  const networkOf = (params: { chain: string; network: string }) => {
    const network = deps.chains.get(params.chain, params.network);
    return `${network.config.chain}/${network.config.network}`;
  };

  app.get(
    '/admin/spam/:chain/:network',
    {
      schema: {
        summary: "A network's spam allow and deny lists: the admin API's entries and the settings' ones",
        tags,
        security: adminSecurity,
        params: NetworkParams,
        response: {
          200: Type.Object({
            entries: Type.Array(Entry, { description: 'Set through this API, by contract' }),
            settings: Type.Object(
              { allow: Type.Array(Type.String()), deny: Type.Array(Type.String()) },
              { description: 'From the spam: section of the settings (read only here)' },
            ),
          }),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request) => {
      const network = networkOf(request.params as { chain: string; network: string });
      return { entries: await deps.spam.listEntries(network), settings: deps.spam.configuredLists(network) };
    },
  );

  app.get(
    '/admin/spam/:chain/:network/reports',
    {
      schema: {
        summary: "What accounts reported as spam or not spam (Alchemy's reportSpam), by contract, most reported as spam first",
        description: `Each account's last report on a contract counts once; at most ${maxReportSummaries} contracts. Reports change no verdict: put a contract on a list to act on them.`,
        tags,
        security: adminSecurity,
        params: NetworkParams,
        response: {
          200: Type.Object({
            reports: Type.Array(
              Type.Object({
                contract: Type.String(),
                spam_reports: Type.Integer({ description: 'Accounts whose last report says spam' }),
                not_spam_reports: Type.Integer({ description: 'Accounts whose last report says not spam' }),
                last_reported_at: Type.String(),
              }),
            ),
          }),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request) => ({
      reports: await deps.spam.reports.summary(networkOf(request.params as { chain: string; network: string })),
    }),
  );

  app.put(
    '/admin/spam/:chain/:network/:contract',
    {
      schema: {
        summary: 'Put a contract on the allow or the deny list of a network (replaces its entry)',
        tags,
        security: adminSecurity,
        params: EntryParams,
        body: EntryBody,
        response: { 200: Entry, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const params = request.params as { chain: string; network: string; contract: string };
      const body = request.body as { list: SpamListName; note?: string };
      const contract = parseAddressParam('contract', params.contract).toLowerCase();
      return deps.spam.setListEntry(networkOf(params), contract, body.list, body.note ?? null);
    },
  );

  app.delete(
    '/admin/spam/:chain/:network/:contract',
    {
      schema: {
        summary: "Take a contract off the network's lists (the heuristics decide again)",
        tags,
        security: adminSecurity,
        params: EntryParams,
        response: { 200: Type.Object({ contract: Type.String(), deleted: Type.Boolean() }), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const params = request.params as { chain: string; network: string; contract: string };
      const contract = parseAddressParam('contract', params.contract).toLowerCase();
      const network = networkOf(params);
      if (!(await deps.spam.removeListEntry(network, contract))) throw notFound(`${contract} is on no spam list of ${network}`);
      return { contract, deleted: true };
    },
  );
}
