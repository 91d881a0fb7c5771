// Starts the whole Blockyard service in a child process with the indexer on for the benchmark's anvil:
// ethereum/devnet from block 0, block_time_s 1, finality_depth 2; logs off; PGlite in a temp directory
// or the given Postgres database. Same child script and environment as blockyard-service.ts.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import type { BlockyardService } from './blockyard-service.ts';
import { startChildServer } from './child-server.ts';

export interface IndexingServiceOptions {
  workDir: string;
  adminToken: string;
  upstreamUrl: string;
  cpuProfile: boolean;
  databaseUrl?: string;
}

const serverScript = fileURLToPath(new URL('./blockyard-server.ts', import.meta.url));

export async function startIndexingService(options: IndexingServiceOptions): Promise<BlockyardService> {
  const dataDir = join(options.workDir, 'blockyard');
  mkdirSync(dataDir, { recursive: true });
  const configFile = join(dataDir, 'blockyard.yaml');
  const chain = {
    chain: 'ethereum',
    network: 'devnet',
    chain_id: 31337,
    testnet: true,
    upstreams: [{ url: options.upstreamUrl }],
    block_time_s: 1,
    finality_depth: 2,
    indexer: { enabled: true, start_block: 0 },
  };
  writeFileSync(configFile, stringify({ chains: [chain] }));
  const profileDir = options.cpuProfile ? mkdtempSync(join(tmpdir(), 'blockyard-bench-profile-')) : undefined;
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
