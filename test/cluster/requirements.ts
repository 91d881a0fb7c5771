import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { libfaketime } from './nodes.ts';

/** What the run needs from the machine, each with the Debian package that provides it. */
const needs: readonly { what: string; present: () => boolean; install: string }[] = [
  { what: 'root', present: () => process.getuid?.() === 0, install: '' },
  { what: 'ip', present: () => runs('ip', ['-V']), install: 'iproute2' },
  { what: 'nft', present: () => runs('nft', ['--version']), install: 'nftables' },
  { what: 'haproxy', present: () => runs('haproxy', ['-v']), install: 'haproxy' },
  { what: 'redis-server', present: () => runs('redis-server', ['--version']), install: 'redis-server' },
  { what: 'postgres 15', present: () => existsSync('/usr/lib/postgresql/15/bin/postgres'), install: 'postgresql-15' },
  { what: 'libfaketime', present: () => existsSync(libfaketime), install: 'faketime' },
  // The alerts and the dashboard are checked against a real Prometheus during the faults.
  { what: 'prometheus', present: () => runs('prometheus', ['--version']), install: 'prometheus' },
  { what: 'promtool', present: () => runs('promtool', ['--version']), install: 'prometheus' },
];

function runs(command: string, args: string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore', timeout: 10_000 }).error === undefined;
}

/** Undefined when everything is here, else the line saying what to install. */
export function missingRequirements(): string | undefined {
  const missing = needs.filter((need) => !need.present());
  if (missing.length === 0) return undefined;
  const packages = missing.filter((need) => !need.what.startsWith('root')).map((need) => need.install);
  return [
    `needs ${missing.map((need) => need.what).join(', ')}`,
    packages.length ? `install with: apt-get install -y ${packages.join(' ')}` : '',
    missing.some((need) => need.what === 'root') ? 'run it as root (it creates network namespaces)' : '',
  ]
    .filter(Boolean)
    .join('; ');
}
