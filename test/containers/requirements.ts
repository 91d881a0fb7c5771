import { spawnSync } from 'node:child_process';

/** What the compose test needs, each with how to get it; undefined when everything is here. */
export function missingContainerRequirements(): string | undefined {
  const missing: string[] = [];
  if (!runs('podman', ['--version'])) missing.push('podman (apt-get install -y podman runc)');
  if (!runs('podman-compose', ['--version'])) missing.push('podman-compose (apt-get install -y podman-compose)');
  if (missing.length > 0) return `needs ${missing.join(', ')}`;
  const images = ['localhost/blockyard:latest', 'localhost/blockyard-infra:latest'].filter(
    (image) => spawnSync('podman', ['image', 'exists', image], { timeout: 30_000 }).status !== 0,
  );
  if (images.length > 0) return `needs the images ${images.join(', ')}: npm run image (-- --local-base without a registry)`;
  return undefined;
}

function runs(command: string, args: string[]): boolean {
  const result = spawnSync(command, args, { stdio: 'ignore', timeout: 30_000 });
  return result.error === undefined && result.status === 0;
}
