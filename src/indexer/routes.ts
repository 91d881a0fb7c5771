import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
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

/** `GET /admin/index/status`: what `blockyard index status` prints. Registered inside the admin guard's scope. */
export async function indexAdminRoutes(app: FastifyInstance, deps: { store: IndexStore }) {
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
}
