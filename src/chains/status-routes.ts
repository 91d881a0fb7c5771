import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { feeModels, finalityModels } from '../config/network-presets.ts';
import { errorResponses, StringEnum } from '../http/schemas.ts';
import { type IndexProgress, networkStatus } from './network-status.ts';
import type { ChainRegistry } from './registry.ts';
import { upstreamConditions } from './upstream-condition.ts';

const UpstreamStatus = Type.Object({
  url_host: Type.String({ description: 'Host and port of the upstream URL (never its path or query, where keys live)' }),
  name: Type.String({ description: 'Its configured name, else url_host: the label of its logs and metrics' }),
  healthy: Type.Boolean({ description: 'It serves reads now (condition ok, lagging or bad_answers)' }),
  latency_ms: Type.Union([Type.Number(), Type.Null()], { description: 'Moving average of answers; null before the first' }),
  state: StringEnum(['closed', 'open', 'half_open'] as const, { description: 'Circuit breaker state' }),
  condition: StringEnum(upstreamConditions, { description: 'What it is doing now, worst first (docs/upstreams.md)' }),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why, with the figures; null when ok' }),
  since: Type.String({ format: 'date-time', description: 'When it entered its condition' }),
  tier: StringEnum(['primary', 'fallback'] as const),
  head: Type.Integer({ description: 'Its latest head (-1: not read yet)' }),
  lag: Type.Integer({ description: 'Blocks behind the best head' }),
  budget: Type.Object({
    rps: Type.Union([Type.Number(), Type.Null()]),
    cu_per_s: Type.Union([Type.Number(), Type.Null()]),
    tuned_rps: Type.Union([Type.Number(), Type.Null()], { description: 'The rate its 429s taught, when below rps' }),
  }),
  logs_range_cap: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Widest eth_getLogs range it takes (null: none known)',
  }),
});

const BackfillStatus = Type.Object({
  id: Type.String(),
  from: Type.Integer(),
  to: Type.Integer(),
  next: Type.Integer({ description: 'First block not filled yet (to + 1 once done)' }),
  status: StringEnum(['pending', 'running', 'done'] as const),
  blocks_done: Type.Integer(),
  blocks_total: Type.Integer(),
  blocks_per_second: Type.Number(),
  transfers_per_second: Type.Number(),
  seconds_left: Type.Union([Type.Integer(), Type.Null()]),
});

const IndexerStatus = Type.Union(
  [
    Type.Object({
      head: Type.Integer({ description: 'The upstream head the indexer last saw (-1: not yet)' }),
      indexed: Type.Integer({ description: 'Newest indexed block (-1: none yet)' }),
      behind: Type.Integer(),
      running: Type.Boolean({ description: 'A process saved progress in the last 30 s' }),
      start_block: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Where the live index starts (a real network: the head of its first start); null before it starts',
      }),
      backfill: Type.Union([BackfillStatus, Type.Null()], {
        description: 'The backfill being worked on, else the last one done; null: none',
      }),
    }),
    Type.Null(),
  ],
  { description: 'null: the network is not indexed' },
);

const NetworkStatus = Type.Object({
  chain: Type.String(),
  network: Type.String(),
  chain_id: Type.Integer(),
  testnet: Type.Boolean(),
  kind: Type.String({ description: 'evm or solana' }),
  native_symbol: Type.String(),
  block_time_s: Type.Number({ description: 'Its block time (preset or setting): gas estimates and head polls follow it' }),
  fee_model: StringEnum(feeModels, { description: 'eip1559, op-stack (L1 data fee), arbitrum (L1 component), polygon, solana' }),
  upstreams: Type.Array(UpstreamStatus),
  served_tip: Type.Integer({ description: 'The newest block served from this network (-1: none yet); never goes back' }),
  indexer: IndexerStatus,
  bundler: Type.Boolean({ description: 'The bundler is enabled on the network' }),
  finality: Type.Object(
    {
      model: StringEnum(finalityModels, {
        description: "tags: the nodes' finalized/safe blocks; depth: finality_depth",
      }),
      depth: Type.Integer({ description: 'finality_depth: the rule with model depth, the fallback with tags' }),
      finalized: Type.Union([Type.Integer(), Type.Null()], { description: 'Newest final block (null: no head yet)' }),
      safe: Type.Union([Type.Integer(), Type.Null()], { description: 'Newest safe block (null: no head yet)' }),
      from_node: Type.Boolean({ description: 'A node reported the tags (false: the depth stands in)' }),
    },
    { description: 'What the webhooks, the index, the cache and eth_getLogs count as final (docs/networks.md)' },
  ),
});

export interface ChainStatusDeps {
  chains: ChainRegistry;
  indexProgress(): Promise<readonly IndexProgress[]>;
}

/**
 * `GET {prefix}/chains`: every configured network, its upstreams' health and its indexer's progress.
 * No guard of its own: register it with a prefix inside a guarded scope (`/admin`, `/dashboard/api`).
 */
export async function chainStatusRoutes(app: FastifyInstance, deps: ChainStatusDeps) {
  app.get(
    '/chains',
    {
      schema: {
        summary: 'Networks, upstream health and indexer progress',
        tags: ['admin'],
        response: { 200: Type.Object({ networks: Type.Array(NetworkStatus) }), ...errorResponses(401) },
      },
    },
    async () => {
      const progress = new Map((await deps.indexProgress()).map((row) => [row.network, row]));
      const now = Date.now();
      return {
        networks: deps.chains
          .list()
          .map((network) => networkStatus(network, progress.get(`${network.config.chain}/${network.config.network}`), now)),
      };
    },
  );
}
