import type { Cluster } from './cluster.ts';
import { redisAnswers } from './cluster.ts';
import { leaseHolder, secondsUntilHolder } from './convergence.ts';
import type { AlertExpectation } from './fault-alerts.ts';
import { startPostgresAgain, startRedis, stopPostgres, waitReady } from './infrastructure.ts';
import { type BlockyardNode, holdsLeases, restartNode } from './nodes.ts';
import { rollingUpgrade } from './rolling-upgrade.ts';
import { killHard, sleep, stopGently } from './shell.ts';
import { heal, hosts, partition } from './topology.ts';

/** One fault: `inject` applies it and returns once it is over (the recovery is measured from then). */
export interface Fault {
  readonly name: string;
  readonly description: string;
  /** The alert of deploy/prometheus/rules.yml that must fire during it and clear after (test/cluster/fault-alerts.ts). */
  readonly alert: AlertExpectation;
  /** Returns the lease failover seconds when the fault moves the leases. */
  inject(cluster: Cluster): Promise<{ failoverS?: number } | undefined>;
}

const blockyardHosts = [hosts.api1, hosts.api2, hosts.work1, hosts.work2].map((host) => host.address);

const otherWorker = (cluster: Cluster, node: BlockyardNode) =>
  node === cluster.nodes.work1 ? cluster.nodes.work2 : cluster.nodes.work1;

/** Kills `holder` (kill -9; by default the indexer's lease holder) and measures until the other worker holds both leases. */
async function killHolder(cluster: Cluster, holder?: BlockyardNode): Promise<{ killed: BlockyardNode; failoverS?: number }> {
  holder ??= await leaseHolder(cluster, ['indexer']);
  if (!holder) throw new Error('no worker holds the indexer lease before the kill');
  const standby = otherWorker(cluster, holder);
  const killedAt = Date.now();
  await killHard(holder.process);
  const failoverS = await secondsUntilHolder(standby, killedAt);
  return { killed: holder, failoverS };
}

/** The worker killed by the first fault, restarted by the second. */
let killedWorker: BlockyardNode | undefined;

export const faults: readonly Fault[] = [
  {
    name: 'kill -9 lease holder',
    description: 'kill -9 of the worker holding the indexer and bundler leases',
    alert: { alerts: ['BlockyardNodeDown'], instance: () => killedWorker?.name, clearsWith: 'restart killed worker' },
    async inject(cluster) {
      const { killed, failoverS } = await killHolder(cluster);
      killedWorker = killed;
      return { failoverS };
    },
  },
  {
    name: 'restart killed worker',
    description: 'the killed worker starts again and stands by',
    alert: { none: "a recovery step: it ends the kill's BlockyardNodeDown" },
    async inject(cluster) {
      if (!killedWorker) throw new Error('no worker was killed');
      await restartNode(cluster.settings, killedWorker);
      await sleep(2_000);
      for (const role of ['indexer', 'bundler'] as const)
        if (await holdsLeases(killedWorker, [role]))
          throw new Error(`${killedWorker.name} took the ${role} lease from a live holder`);
      return undefined;
    },
  },
  {
    name: 'kill -9 api1',
    description: 'kill -9 of api1, 5 s down, then started again',
    alert: { alerts: ['BlockyardNodeDown'], instance: () => 'api1' },
    async inject(cluster) {
      await killHard(cluster.nodes.api1.process);
      await sleep(5_000);
      await restartNode(cluster.settings, cluster.nodes.api1);
      return undefined;
    },
  },
  {
    name: 'api2 cut from db 10 s',
    description: 'nft drop between api2 and db for 10 s',
    alert: { alerts: ['BlockyardDatabaseUnavailable'], instance: () => 'api2' },
    async inject() {
      partition('api2', [hosts.db.address]);
      await sleep(10_000);
      heal('api2');
      return undefined;
    },
  },
  {
    name: 'work2-db 200 ms, 5% loss, 30 s',
    description: '200 ms each way and 5% of chunks retransmitted after 1 s, between work2 and db, for 30 s',
    alert: { none: 'nothing fails, a worker is slower; no rule watches database latency' },
    async inject(cluster) {
      await cluster.delayProxy.set({ delayMs: 200, lossRate: 0.05 });
      await sleep(30_000);
      await cluster.delayProxy.set({ delayMs: 0, lossRate: 0 });
      return undefined;
    },
  },
  {
    name: 'postgres restart',
    description: 'pg_ctl stop -m fast, then start',
    // Back within ~2 s, under the 2 s probe behind BlockyardDatabaseUnavailable: the fast shutdown
    // ends every node's sessions, which each node counts.
    alert: { alerts: ['BlockyardDatabaseConnectionsLost'] },
    async inject(cluster) {
      stopPostgres(cluster.postgres, 'fast');
      startPostgresAgain(cluster.postgres);
      return undefined;
    },
  },
  {
    name: 'redis restart',
    description: 'redis-server stopped (SIGTERM) and started again, empty',
    // Away ~1 s, under the 2 s probe behind BlockyardRedisUnavailable: each node's connection closes.
    alert: { alerts: ['BlockyardRedisConnectionsLost'] },
    async inject(cluster) {
      await stopGently(cluster.redis);
      cluster.redis = startRedis(cluster.runDir);
      await waitReady('redis', redisAnswers);
      return undefined;
    },
  },
  {
    name: 'chain unreachable 10 s',
    description: 'nft drop in chain for every Blockyard host, 10 s (the load still reaches it)',
    alert: { alerts: ['BlockyardNoHealthyUpstream', 'BlockyardUpstreamsAllOpen'] },
    async inject() {
      partition('chain', blockyardHosts);
      await sleep(10_000);
      heal('chain');
      return undefined;
    },
  },
  {
    name: 'clock +30 s on lease holder',
    description:
      'the standby restarted under libfaketime +30 s, the holder killed so it takes the leases, the other restarted; 20 s',
    alert: {
      none: "no rule compares clocks (no decision in the service uses a node's clock); its restarts show as BlockyardNodeDown",
    },
    async inject(cluster) {
      // The worker without the indexer lease is restarted skewed (a bundler lease it held moves to
      // the other meanwhile); then the other is killed, so the skewed one holds both.
      const indexerHolder = await leaseHolder(cluster, ['indexer']);
      if (!indexerHolder) throw new Error('no worker holds the indexer lease');
      const skewed = otherWorker(cluster, indexerHolder);
      await stopGently(skewed.process);
      await restartNode(cluster.settings, skewed, { clockAhead: '+30s' });
      const { failoverS } = await killHolder(cluster, indexerHolder);
      await restartNode(cluster.settings, indexerHolder);
      await sleep(20_000);
      return { failoverS };
    },
  },
  rollingUpgrade,
];
