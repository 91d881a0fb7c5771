// Starts the whole Blockyard service in a child process for a benchmark: one devnet chain, an admin
// token, PGlite in a temp data directory (or BENCH_DATABASE_URL's Postgres), logs off.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { type ChildServer, startChildServer } from './child-server.ts';

export interface BlockyardService {
  server: ChildServer;
  /** Where node --cpu-prof writes, when profiling. */
  profileDir?: string;
}

export interface BlockyardServiceOptions {
  /** A directory the caller removes afterwards; the service's data directory goes inside it. */
  workDir: string;
  adminToken: string;
  upstream: { url: string; ws_url?: string };
  cpuProfile?: boolean;
  /** A real Postgres instead of the embedded PGlite (BENCH_DATABASE_URL). */
  databaseUrl?: string;
  /** More fields of the chain entry, e.g. `indexer`, `finality_depth`, `block_time_s`. */
  chainSettings?: Record<string, unknown>;
}

const serverScript = fileURLToPath(new URL('./blockyard-server.ts', import.meta.url));

export async function startBlockyardService(options: BlockyardServiceOptions): Promise<BlockyardService> {
  const dataDir = join(options.workDir, 'blockyard');
  mkdirSync(dataDir, { recursive: true });
  const configFile = join(dataDir, 'blockyard.yaml');
  const chains = [
    {
      chain: 'ethereum',
      network: 'devnet',
      chain_id: 31337,
      testnet: true,
      upstreams: [{ ...options.upstream }],
      ...options.chainSettings,
    },
  ];
  writeFileSync(configFile, stringify({ chains }));
  const profileDir = options.cpuProfile ? mkdtempSync(join(tmpdir(), 'blockyard-bench-profile-')) : undefined;
  // The caller's own DATABASE_URL or REDIS_URL must not leak into the measured service.
  const { DATABASE_URL: _database, REDIS_URL: _redis, ...inherited } = process.env;
  const server = await startChildServer({
    name: 'blockyard',
    script: serverScript,
    nodeFlags: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
    startTimeoutMs: 60_000,
    env: {
      ...inherited,
      ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
      BLOCKYARD_CONFIG: configFile,
      BLOCKYARD_DATA_DIR: dataDir,
      BLOCKYARD_HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'silent',
      BLOCKYARD_ADMIN_TOKEN: options.adminToken,
    },
  });
  return profileDir ? { server, profileDir } : { server };
}

/** Which database the service runs on, for the printed settings line. */
export function databaseLabel(databaseUrl: string | undefined): string {
  if (!databaseUrl) return 'embedded PGlite';
  try {
    const url = new URL(databaseUrl);
    return `Postgres at ${url.hostname}:${url.port || '5432'}`;
  } catch {
    return 'Postgres (BENCH_DATABASE_URL)';
  }
}
