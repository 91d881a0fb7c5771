import { sh, shQuiet } from './shell.ts';

/** The run's private subnet and names: other runs on this machine use their own. */
export const subnet = '10.231.0.0/24';
export const bridge = 'bk-br0';
export const controlAddress = '10.231.0.1';

/** Each host: its namespace and its address on the bridge. */
export const hosts = {
  db: { namespace: 'bk-db', address: '10.231.0.10' },
  cache: { namespace: 'bk-cache', address: '10.231.0.11' },
  chain: { namespace: 'bk-chain', address: '10.231.0.12' },
  lb: { namespace: 'bk-lb', address: '10.231.0.13' },
  api1: { namespace: 'bk-api1', address: '10.231.0.21' },
  api2: { namespace: 'bk-api2', address: '10.231.0.22' },
  work1: { namespace: 'bk-work1', address: '10.231.0.31' },
  work2: { namespace: 'bk-work2', address: '10.231.0.32' },
  rx: { namespace: 'bk-rx', address: '10.231.0.40' },
} as const;
export type HostName = keyof typeof hosts;

/** The root namespace's end of a host's veth pair (at most 15 characters). */
const vethOf = (host: HostName) => `${hosts[host].namespace}-h`;

/** Removes whatever an earlier run left: namespaces (their veth ends go with them) and the bridge. */
export function removeTopology(): void {
  const existing = sh('ip', ['netns', 'list']);
  for (const host of Object.keys(hosts) as HostName[]) {
    const { namespace } = hosts[host];
    if (new RegExp(`^${namespace}( |$)`, 'm').test(existing)) {
      // Processes an earlier run left inside (only this harness uses these names) would outlive the namespace.
      for (const pid of sh('ip', ['netns', 'pids', namespace]).split('\n').filter(Boolean)) shQuiet('kill', ['-9', pid]);
      shQuiet('ip', ['netns', 'delete', namespace]);
    }
    shQuiet('ip', ['link', 'delete', vethOf(host)]);
  }
  shQuiet('ip', ['link', 'delete', bridge]);
}

/** The bridge with the control address, and one namespace per host with `lo` up and its address. */
export function createTopology(): void {
  sh('ip', ['link', 'add', bridge, 'type', 'bridge']);
  sh('ip', ['addr', 'add', `${controlAddress}/24`, 'dev', bridge]);
  sh('ip', ['link', 'set', bridge, 'up']);
  for (const host of Object.keys(hosts) as HostName[]) {
    const { namespace, address } = hosts[host];
    sh('ip', ['netns', 'add', namespace]);
    sh('ip', ['link', 'add', vethOf(host), 'type', 'veth', 'peer', 'name', 'eth0', 'netns', namespace]);
    sh('ip', ['link', 'set', vethOf(host), 'master', bridge, 'up']);
    sh('ip', ['-n', namespace, 'link', 'set', 'lo', 'up']);
    sh('ip', ['-n', namespace, 'addr', 'add', `${address}/24`, 'dev', 'eth0']);
    sh('ip', ['-n', namespace, 'link', 'set', 'eth0', 'up']);
  }
}

/**
 * Silently drops every packet between `host` and the `peers` (a partition that hangs, as a cut cable
 * does: nothing is refused), with an nft table of its own inside the host's namespace.
 */
export function partition(host: HostName, peers: readonly string[]): void {
  const list = peers.join(', ');
  const rules = `table inet bk_fault {
  chain input { type filter hook input priority 0; policy accept; ip saddr { ${list} } drop; }
  chain output { type filter hook output priority 0; policy accept; ip daddr { ${list} } drop; }
}
`;
  sh('ip', ['netns', 'exec', hosts[host].namespace, 'nft', '-f', '-'], { input: rules });
}

/** Ends `partition(host, ...)`. */
export function heal(host: HostName): void {
  shQuiet('ip', ['netns', 'exec', hosts[host].namespace, 'nft', 'delete', 'table', 'inet', 'bk_fault']);
}
