import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { ChainRegistry } from '../chains/registry.ts';
import { notFound } from '../core/errors.ts';
import { errorResponses, StringEnum } from '../http/schemas.ts';
import { formatBackfillJob, requestBackfill } from './backfill-requests.ts';
import type { BackfillStore } from './backfill-store.ts';
import type { IndexStore } from './store.ts';

const NetworkProgress = Type.Object({
  network: Type.String({ description: '{chain}/{network}' }),
  indexed_block: Type.Integer({ description: 'Newest indexed block (-1: none yet)' }),
  head_block: Type.Integer({ description: 'The upstream head the indexer last saw' }),
  blocks_behind: Type.Integer(),
  final_block: Type.Integer({
    description:
      "Newest indexed block the network counts as final (its nodes' finalized tag, or finality_depth deep; docs/networks.md)",
  }),
  blocks_per_second: Type.Number({ description: 'Over the last progress interval' }),
  transfers_per_second: Type.Number({ description: 'Token, NFT, native and internal transfers, over the last interval' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const BackfillJobSchema = Type.Object({
  id: Type.String(),
  network: Type.String({ description: '{chain}/{network}' }),
  from: Type.Integer(),
  to: Type.Integer(),
  next: Type.Integer({ description: 'First block not filled yet (to + 1 once done)' }),
  status: StringEnum(['pending', 'running', 'done'] as const),
  blocks_total: Type.Integer(),
  blocks_done: Type.Integer(),
  transfers: Type.Integer({ description: 'Token, NFT, native and internal transfers filled so far' }),
  blocks_per_second: Type.Number({ description: 'Over the last few seconds of work' }),
  transfers_per_second: Type.Number(),
  seconds_left: Type.Union([Type.Integer(), Type.Null()], { description: 'At the current rate; null before one is known' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

const BackfillRequest = Type.Object(
  {
    network: Type.String({ description: '{chain}/{network}, e.g. base/mainnet' }),
    from: Type.Integer({ minimum: 0 }),
    to: Type.Optional(Type.Integer({ minimum: 0, description: 'Default: the block just below where the index starts' })),
  },
  { additionalProperties: false },
);

/**
 * `GET /admin/index/status` (what `blockyard index status` prints) and the backfill jobs that
 * `blockyard index backfill` records and follows. Registered inside the admin guard's scope.
 */
export async function indexAdminRoutes(
  app: FastifyInstance,
  deps: { store: IndexStore; backfills: BackfillStore; chains: ChainRegistry },
) {
  app.get(
    '/admin/index/status',
    {
      schema: {
        summary: 'Indexer progress per network',
        tags: ['admin'],
        response: { 200: Type.Object({ networks: Type.Array(NetworkProgress) }) },
      },
    },
    async () => {
      const rows = await deps.store.progress();
      return {
        networks: rows.map((row) => ({
          network: row.network,
          indexed_block: row.indexedBlock,
          head_block: row.headBlock,
          blocks_behind: Math.max(0, row.headBlock - row.indexedBlock),
          final_block: row.finalBlock,
          blocks_per_second: row.blocksPerSecond,
          transfers_per_second: row.transfersPerSecond,
          updated_at: row.updatedAt,
        })),
      };
    },
  );
  await backfillRoutes(app, deps);
}

async function backfillRoutes(app: FastifyInstance, deps: { backfills: BackfillStore; chains: ChainRegistry }) {
  app.post(
    '/admin/index/backfills',
    {
      schema: {
        summary: 'Fill blocks below where a network’s index starts (in the background, resumable)',
        tags: ['admin'],
        body: BackfillRequest,
        response: { 201: BackfillJobSchema, ...errorResponses(400, 409) },
      },
    },
    async (request, reply) => {
      const { network, from, to } = request.body as { network: string; from: number; to?: number };
      const job = await requestBackfill(deps, { network, from, ...(to === undefined ? {} : { to }) });
      return reply.code(201).send(formatBackfillJob(job));
    },
  );
  app.get(
    '/admin/index/backfills',
    {
      schema: {
        summary: 'Backfill jobs, newest first (100 at most)',
        tags: ['admin'],
        querystring: Type.Object({ network: Type.Optional(Type.String()) }),
        response: { 200: Type.Object({ backfills: Type.Array(BackfillJobSchema) }) },
      },
    },
    async (request) => {
      const { network } = request.query as { network?: string };
      return { backfills: (await deps.backfills.list(network)).map(formatBackfillJob) };
    },
  );
  app.get(
    '/admin/index/backfills/:id',
    {
      schema: {
        summary: 'One backfill job',
        tags: ['admin'],
        params: Type.Object({ id: Type.String() }),
        response: { 200: BackfillJobSchema, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const job = await deps.backfills.get(id);
      if (!job) throw notFound(`no backfill ${id}`);
      return formatBackfillJob(job);
    },
  );
}
