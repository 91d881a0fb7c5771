import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closedPort } from '../support/closed-port.ts';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A copy of deploy/ in a temporary directory, brought up under its own compose project name. */
export interface ComposeProject {
  readonly name: string;
  /** deploy/compose inside the copy: where compose.yaml and .env are. */
  readonly composeDir: string;
  readonly root: string;
  readonly httpPort: number;
  readonly chainPort: number;
  readonly receiverPort: number;
  readonly adminToken: string;
}

/**
 * deploy/compose as a user runs it (the files as shipped, a .env of fresh secrets), plus the test's
 * receiver. Ports are free loopback ports, so a service on 8080 or 8545 here does not get in the way.
 */
export async function prepareProject(): Promise<ComposeProject> {
  const root = mkdtempSync('/tmp/bk-compose-');
  mkdirSync(join(root, 'deploy'));
  for (const part of ['compose', 'haproxy.cfg', 'haproxy-errors']) {
    cpSync(join(repoRoot, 'deploy', part), join(root, 'deploy', part), { recursive: true });
  }
  const composeDir = join(root, 'deploy', 'compose');
  for (const file of ['receiver.compose.yaml', 'receiver.mjs']) {
    cpSync(join(repoRoot, 'test', 'containers', file), join(composeDir, file));
  }
  const [httpPort, chainPort, receiverPort] = [await closedPort(), await closedPort(), await closedPort()];
  const adminToken = randomBytes(24).toString('hex');
  const env = {
    BLOCKYARD_ADMIN_TOKEN: adminToken,
    BLOCKYARD_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    POSTGRES_PASSWORD: randomBytes(16).toString('hex'),
    BLOCKYARD_HTTP_PORT: String(httpPort),
    BLOCKYARD_CHAIN_PORT: String(chainPort),
    RECEIVER_PORT: String(receiverPort),
  };
  writeFileSync(
    join(composeDir, '.env'),
    Object.entries(env)
      .map(([name, value]) => `${name}=${value}`)
      .join('\n'),
  );
  const name = `bkc${randomBytes(3).toString('hex')}`;
  return { name, composeDir, root, httpPort, chainPort, receiverPort, adminToken };
}

/** `podman-compose -p NAME -f compose.yaml -f receiver.compose.yaml ARGS`; throws with its output on failure. */
export function compose(project: ComposeProject, args: string[], timeoutMs = 300_000): string {
  const files = ['-f', 'compose.yaml', '-f', 'receiver.compose.yaml'];
  return run('podman-compose', ['-p', project.name, ...files, ...args], timeoutMs, project.composeDir);
}

export function podman(args: string[], timeoutMs = 120_000): string {
  return run('podman', args, timeoutMs);
}

/** podman-compose's name for a service's (first) container. */
export function containerOf(project: ComposeProject, service: string): string {
  return `${project.name}_${service}_1`;
}

/** Down with its volumes, and what `podman-compose down` leaves: the project's network, the copied files. */
export function removeProject(project: ComposeProject): void {
  // podman-compose 1.0.3's `down -v` removes the named volumes only: each container's anonymous /data
  // volume (the image declares it) is read from the containers first and removed after.
  const anonymous = anonymousVolumesOf(project);
  try {
    // -v: the database volume and each container's anonymous /data volume (the image declares it).
    compose(project, ['down', '-v', '-t', '10'], 180_000);
  } catch (error) {
    process.stderr.write(`compose down: ${(error as Error).message}\n`);
  }
  spawnSync('podman', ['network', 'rm', '-f', `${project.name}_default`], { stdio: 'ignore', timeout: 60_000 });
  for (const volume of [`${project.name}_pgdata`, ...anonymous]) {
    spawnSync('podman', ['volume', 'rm', '-f', volume], { stdio: 'ignore', timeout: 60_000 });
  }
  rmSync(project.root, { recursive: true, force: true });
}

function anonymousVolumesOf(project: ComposeProject): string[] {
  const listed = spawnSync('podman', ['ps', '-a', '-q', '--filter', `label=io.podman.compose.project=${project.name}`], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  const containers = (listed.stdout ?? '').split('\n').filter(Boolean);
  if (containers.length === 0) return [];
  const format = '{{range .Mounts}}{{if eq .Type "volume"}}{{.Name}} {{end}}{{end}}';
  const mounts = spawnSync('podman', ['inspect', '--format', format, ...containers], { encoding: 'utf8', timeout: 60_000 });
  return (mounts.stdout ?? '').split(/\s+/).filter((name) => /^[0-9a-f]{64}$/.test(name));
}

function run(command: string, args: string[], timeoutMs: number, cwd?: string): string {
  const result = spawnSync(command, args, { cwd, timeout: timeoutMs, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error || result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-25).join('\n');
    throw new Error(`${command} ${args.join(' ')}: ${result.error?.message ?? `exit ${result.status}`}\n${output}`);
  }
  return result.stdout;
}
