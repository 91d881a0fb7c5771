import { sh, shQuiet } from './shell.ts';

/**
 * The run's names and private subnet: other runs on this machine use their own. BK_CLUSTER_NAME (the
 * namespaces' and bridge's prefix, default `bk`) and BK_CLUSTER_OCTET (the subnet 10.231.<octet>.0/24,
 * default 0) let a second run share the machine with one on the defaults.
 */
const prefix = process.env.BK_CLUSTER_NAME ?? 'bk';
const octet = Number(process.env.BK_CLUSTER_OCTET ?? '0');
// Interface names have at most 15 characters: `${prefix}-work2-h` must fit.
if (!/^[a-z]{1,5}$/.test(prefix)) throw new Error(`BK_CLUSTER_NAME must be 1-5 lower-case letters, not ${prefix}`);
if (!Number.isInteger(octet) || octet < 0 || octet > 255) throw new Error(`BK_CLUSTER_OCTET must be 0-255, not ${octet}`);
const net = `10.231.${octet}`;
export const subnet = `${net}.0/24`;
export const bridge = `${prefix}-br0`;
export const controlAddress = `${net}.1`;
/** The nft table a partition adds inside a namespace. */
const faultTable = `${prefix}_fault`;

/** deploy/ files name the default subnet's addresses: in another subnet they are rewritten. */
export function forThisSubnet(text: string): string {
  return text.replaceAll('10.231.0.', `${net}.`);
}

const host = (name: string, last: number) => ({ namespace: `${prefix}-${name}`, address: `${net}.${last}` });

/** Each host: its namespace and its address on the bridge. */
export const hosts = {
  db: host('db', 10),
  cache: host('cache', 11),
  chain: host('chain', 12),
  lb: host('lb', 13),
  api1: host('api1', 21),
  api2: host('api2', 22),
  work1: host('work1', 31),
  work2: host('work2', 32),
  rx: host('rx', 40),
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
  const rules = `table inet ${faultTable} {
  chain input { type filter hook input priority 0; policy accept; ip saddr { ${list} } drop; }
  chain output { type filter hook output priority 0; policy accept; ip daddr { ${list} } drop; }
}
`;
  sh('ip', ['netns', 'exec', hosts[host].namespace, 'nft', '-f', '-'], { input: rules });
}

/** Ends `partition(host, ...)`. */
export function heal(host: HostName): void {
  shQuiet('ip', ['netns', 'exec', hosts[host].namespace, 'nft', 'delete', 'table', 'inet', faultTable]);
}
