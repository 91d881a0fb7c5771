import { spawnSync } from 'node:child_process';
import { beforeEach } from 'vitest';

/** A program some tests run (a real server); `missing` says what to install when it is not on PATH. */
export interface Requirement {
  readonly command: string;
  /** Undefined when the program runs here; else the skip note naming what to install. */
  readonly missing: string | undefined;
}

function requirement(command: string, install: string): Requirement {
  const found = spawnSync(command, ['--version'], { stdio: 'ignore', timeout: 10_000 });
  const missing =
    found.error === undefined ? undefined : `needs ${command}, which is not installed here: ${install} (CI installs it)`;
  return { command, missing };
}

/** `npm test` must pass on a machine with only Node and npm: tests of a real Redis skip without one. */
export const redisServer = requirement('redis-server', 'apt-get install redis-server');

/** The shipped load balancer config (deploy/haproxy.cfg) is run by the tests of what it logs. */
export const haproxyServer = requirement('haproxy', 'apt-get install haproxy');

/** The shipped alert rules (deploy/prometheus) are checked and unit-tested by Prometheus's own tool. */
export const promtool = requirement('promtool', 'apt-get install prometheus');

/** A live Prometheus scrapes a running node to evaluate the shipped dashboard's queries. */
export const prometheusServer = requirement('prometheus', 'apt-get install prometheus');

/**
 * Inside a `describe`: every test of it is skipped, with the note, when the program is missing (the
 * summary line lists the notes). Its `beforeAll` must check `missing` too and start nothing.
 */
export function skipWithout(needed: Requirement): void {
  beforeEach((context) => {
    if (needed.missing) context.skip(needed.missing);
  });
}
