import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Abi, Hex } from 'viem';

export interface ContractArtifact {
  abi: Abi;
  /** Creation code (constructor included), without constructor arguments. */
  bytecode: Hex;
  /** Runtime code, as installed at an address. */
  deployedBytecode: Hex;
}

export const contractNames = [
  'DemoToken',
  'DemoNft',
  'DemoItems',
  'DemoPriceFeed',
  'DemoSpamToken',
  'DemoSpamNft',
  'Multicall3',
  'BenchToken',
  'Simple7702AccountV06',
  'Simple7702AccountV07',
  'VerifyingPaymasterV08',
  // Tests only: Arbitrum's NodeInterface is answered by the Nitro node, not deployed code.
  'ArbitrumNodeInterfaceStandIn',
] as const;
export type ContractName = (typeof contractNames)[number];
export type ContractArtifacts = Readonly<Record<ContractName, ContractArtifact>>;

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const defaultPlaces: CompilePlaces = {
  contractsDir: join(repoRoot, 'contracts'),
  cacheDir: join(repoRoot, 'node_modules', '.cache', 'blockyard-contracts'),
};
const require = createRequire(import.meta.url);

// 'cancun' runs on anvil's default hardfork and on every mainnet-like chain today. Without a metadata
// hash, an edit to comments keeps the code, and so the demo's CREATE2 addresses, the same.
const settings = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  metadata: { bytecodeHash: 'none' },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
};

let inFlight: Promise<ContractArtifacts> | undefined;

/**
 * Compiles every `contracts/*.sol` with solc. The result is cached on disk by a hash of the sources and
 * the compiler version, and shared by concurrent callers, so only the first call ever pays (~5 s).
 *
 * @example
 * const { DemoToken } = await compileContracts();
 * await wallet.deployContract({ abi: DemoToken.abi, bytecode: DemoToken.bytecode, args: ['Demo', 'DMO', 18] });
 */
export function compileContracts(): Promise<ContractArtifacts> {
  inFlight ??= compileContractsIn(defaultPlaces).catch((error: unknown) => {
    inFlight = undefined;
    throw error;
  });
  return inFlight;
}

export interface CompilePlaces {
  /** Every `*.sol` file here is compiled. */
  contractsDir: string;
  cacheDir: string;
}

/** `compileContracts` for other places (tests), without the in-process sharing. */
export async function compileContractsIn({ contractsDir, cacheDir }: CompilePlaces): Promise<ContractArtifacts> {
  const sources = await readSources(contractsDir);
  const solcVersion = (require('solc/package.json') as { version: string }).version;
  const key = createHash('sha256').update(JSON.stringify({ solcVersion, settings, sources })).digest('hex').slice(0, 32);
  const cacheFile = join(cacheDir, `${key}.json`);
  const cached = await readCache(cacheFile);
  if (cached !== undefined) return cached;
  const artifacts = parseOutput(await runSolc({ language: 'Solidity', sources, settings }));
  await writeCache(cacheDir, cacheFile, artifacts);
  return artifacts;
}

async function readSources(contractsDir: string): Promise<Record<string, { content: string }>> {
  const files = (await readdir(contractsDir)).filter((file) => file.endsWith('.sol')).sort();
  const sources: Record<string, { content: string }> = {};
  for (const file of files) sources[file] = { content: await readFile(join(contractsDir, file), 'utf8') };
  return sources;
}

/** solc's compile is synchronous for seconds: a worker keeps the caller's event loop free. */
function runSolc(input: object): Promise<string> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const solc = require(workerData.solcPath);
    parentPort.postMessage(solc.compile(workerData.input));`;
  const worker = new Worker(code, {
    eval: true,
    workerData: { solcPath: require.resolve('solc'), input: JSON.stringify(input) },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (output: string) => {
      resolve(output);
      void worker.terminate();
    });
    worker.once('error', (error) => reject(new Error(`solc failed: ${error.message}`, { cause: error })));
    worker.once('exit', (code) => reject(new Error(`solc worker exited with code ${code} before answering`)));
  });
}

interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<
    string,
    Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
  >;
}

function parseOutput(raw: string): ContractArtifacts {
  const output = JSON.parse(raw) as SolcOutput;
  const errors = (output.errors ?? []).filter((entry) => entry.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`Solidity compilation failed:\n${errors.map((entry) => entry.formattedMessage).join('\n')}`);
  }
  const artifacts: Record<string, ContractArtifact> = {};
  for (const byName of Object.values(output.contracts ?? {})) {
    for (const [name, contract] of Object.entries(byName)) {
      // Interfaces have no code.
      if (contract.evm.bytecode.object === '') continue;
      artifacts[name] = {
        abi: contract.abi,
        bytecode: `0x${contract.evm.bytecode.object}`,
        deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
      };
    }
  }
  const missing = contractNames.filter((name) => artifacts[name] === undefined);
  if (missing.length > 0) throw new Error(`solc produced no code for ${missing.join(', ')} (see contracts/)`);
  return artifacts as ContractArtifacts;
}

async function readCache(file: string): Promise<ContractArtifacts | undefined> {
  try {
    const artifacts = JSON.parse(await readFile(file, 'utf8')) as Partial<ContractArtifacts>;
    return contractNames.every((name) => artifacts[name]?.bytecode.startsWith('0x'))
      ? (artifacts as ContractArtifacts)
      : undefined;
  } catch {
    // Absent or unreadable: compile again.
    return undefined;
  }
}

/** Write then rename, so a process reading the cache concurrently never sees half a file. */
async function writeCache(cacheDir: string, file: string, artifacts: ContractArtifacts): Promise<void> {
  try {
    await mkdir(cacheDir, { recursive: true });
    const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(temporary, JSON.stringify(artifacts));
    await rename(temporary, file);
  } catch {
    // A read-only install still works; it compiles on every start.
  }
}
