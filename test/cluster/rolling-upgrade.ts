import type { Cluster } from './cluster.ts';
import type { Fault } from './faults.ts';
import { type BlockyardNode, restartNode } from './nodes.ts';
import { pollUntil, sleep, stopGently } from './shell.ts';

/** deploy/haproxy.cfg's backend. */
const backend = 'blockyard_api';
/** SIGTERM to exit: the service's own grace (shutdown_grace_s, 10 s by default) and a margin. */
const stopGraceMs = 20_000;

/** What the roll measured per node: seconds out of rotation (drain to traffic again). */
export const rollTimes: { node: string; outS: number }[] = [];

/**
 * Upgrades one API node the documented way (docs/operations.md "Upgrades"): haproxy's runtime API sets
 * it to drain (no new request goes to it; those in flight finish), SIGTERM (the service stops taking
 * connections, finishes what it has, closes WebSockets: their clients reconnect through haproxy to the
 * other node), the new build is started (here the same build: what is tested is the procedure), and once
 * its /healthz answers it is set ready; done when haproxy reports it UP and has sent it requests again.
 */
async function upgradeOne(cluster: Cluster, node: BlockyardNode): Promise<void> {
  const admin = cluster.haproxyAdmin;
  const drainedAt = Date.now();
  await admin.command(`set server ${backend}/${node.name} state drain`);
  // Requests already on their way to it are answered before it stops (the service drains them too).
  await pollUntil(async () => ((await admin.server(backend, node.name)).current === 0 ? true : undefined), 3_000, 100);
  await stopGently(node.process, stopGraceMs);
  await restartNode(cluster.settings, node);
  // Ready (its database, Redis and chain answer), not only serving: then haproxy may send it requests.
  const ready = await pollUntil(
    async () => {
      const response = await fetch(`${node.url}/healthz`, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      return response.status === 200 ? true : undefined;
    },
    60_000,
    250,
  );
  if (!ready) throw new Error(`${node.name} did not become ready (GET /healthz 200) within 60 s of its start`);
  const before = (await admin.server(backend, node.name)).total;
  await admin.command(`set server ${backend}/${node.name} state ready`);
  const serving = await pollUntil(
    async () => {
      const server = await admin.server(backend, node.name);
      return server.status === 'UP' && server.total > before ? true : undefined;
    },
    30_000,
    100,
  );
  if (!serving) throw new Error(`haproxy did not send ${node.name} requests again within 30 s of its restart`);
  rollTimes.push({ node: node.name, outS: (Date.now() - drainedAt) / 1000 });
}

/** The rolling upgrade, as one step of the run: api1, then api2, under the load. */
export const rollingUpgrade: Fault = {
  name: 'rolling upgrade',
  description: 'each API node in turn: drained in haproxy, SIGTERM, started again, back in rotation',
  alert: { none: 'a planned restart: BlockyardNodeDown fires for each node while it is down (silence it for the roll)' },
  async inject(cluster) {
    for (const node of [cluster.nodes.api1, cluster.nodes.api2]) {
      await upgradeOne(cluster, node);
      await sleep(1_000);
    }
    return undefined;
  },
};
