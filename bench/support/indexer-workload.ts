// What the indexer benchmark puts on the devnet before Blockyard starts: many ERC-20 transfers (BenchToken's
// spray and shuffle, hundreds per transaction) and one address holding many different tokens (DemoToken).
import { type Address, encodeDeployData, encodeFunctionData, getContractAddress, type Hex } from 'viem';
import type { ContractArtifacts } from '../../src/contracts/compile.ts';
import { anvilCall } from './anvil-rpc.ts';

/** anvil's first default account: unlocked, so anvil signs and numbers its eth_sendTransaction calls. */
const sender: Address = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
/** Explicit, so no estimate per transaction; under anvil's 30M block gas limit. */
const gas = `0x${(25_000_000).toString(16)}`;
const oneToken = 10n ** 18n;

export interface TransferWorkload {
  benchToken: Address;
  /** Transfer events emitted by BenchToken. */
  transfers: number;
  transactions: number;
  ms: number;
}

export interface HeldTokens {
  holder: Address;
  tokens: Address[];
  transactions: number;
  ms: number;
}

/** Deploys BenchToken, mints to every recipient, then moves balances between them until `transfers` is reached. */
export async function generateTransfers(
  url: string,
  artifacts: ContractArtifacts,
  options: { transfers: number; recipients: number; perTransaction: number },
): Promise<TransferWorkload> {
  const started = performance.now();
  const { abi, bytecode } = artifacts.BenchToken;
  const benchToken = await deploy(url, encodeDeployData({ abi, bytecode }));
  const recipients = Array.from({ length: options.recipients }, (_, index) => recipientAddress(index));
  let transfers = 0;
  let transactions = 1;
  let last: Hex | undefined;
  for (let start = 0; start < recipients.length; start += options.perTransaction) {
    const to = recipients.slice(start, start + options.perTransaction);
    last = await send(url, benchToken, encodeFunctionData({ abi, functionName: 'spray', args: [to, 1_000n * oneToken] }));
    transfers += to.length;
    transactions++;
  }
  const random = seededRandom(20261123);
  while (transfers < options.transfers) {
    const count = Math.min(options.perTransaction, options.transfers - transfers);
    const from: Address[] = [];
    const to: Address[] = [];
    for (let index = 0; index < count; index++) {
      const source = Math.floor(random() * recipients.length);
      const offset = 1 + Math.floor(random() * (recipients.length - 1));
      from.push(recipients[source]!);
      to.push(recipients[(source + offset) % recipients.length]!);
    }
    last = await send(url, benchToken, encodeFunctionData({ abi, functionName: 'shuffle', args: [from, to, 1n] }));
    transfers += count;
    transactions++;
  }
  if (last) await waitForSuccess(url, last);
  return { benchToken, transfers, transactions, ms: performance.now() - started };
}

/** Deploys `count` DemoTokens and mints a different amount of each to one fresh address. */
export async function deployHeldTokens(url: string, artifacts: ContractArtifacts, count: number): Promise<HeldTokens> {
  const started = performance.now();
  const holder: Address = '0x00000000000000000000000000000000b0b0b0b0';
  const { abi, bytecode } = artifacts.DemoToken;
  const tokens: Address[] = [];
  for (let index = 1; index <= count; index++) {
    tokens.push(await deploy(url, encodeDeployData({ abi, bytecode, args: [`Held Token ${index}`, `HELD${index}`, 18] })));
  }
  let last: Hex | undefined;
  for (const [index, token] of tokens.entries()) {
    last = await send(
      url,
      token,
      encodeFunctionData({ abi, functionName: 'mint', args: [holder, BigInt(index + 1) * oneToken] }),
    );
  }
  if (last) await waitForSuccess(url, last);
  return { holder, tokens, transactions: 2 * count, ms: performance.now() - started };
}

/** Distinct, deterministic, far from the precompiles and from the holder. */
function recipientAddress(index: number): Address {
  return `0xbe${index.toString(16).padStart(38, '0')}`;
}

async function deploy(url: string, data: Hex): Promise<Address> {
  const nonce = Number(BigInt((await anvilCall(url, 'eth_getTransactionCount', [sender, 'pending'])) as Hex));
  const hash = (await anvilCall(url, 'eth_sendTransaction', [{ from: sender, data, gas }])) as Hex;
  await waitForSuccess(url, hash);
  return getContractAddress({ from: sender, nonce: BigInt(nonce) }).toLowerCase() as Address;
}

function send(url: string, to: Address, data: Hex): Promise<Hex> {
  return anvilCall(url, 'eth_sendTransaction', [{ from: sender, to, data, gas }]) as Promise<Hex>;
}

/** Automine mines each transaction at once; a receipt missing for 30 s or a revert stops the run. */
async function waitForSuccess(url: string, hash: Hex): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const receipt = (await anvilCall(url, 'eth_getTransactionReceipt', [hash])) as { status?: Hex } | null;
    if (receipt) {
      if (receipt.status !== '0x1') throw new Error(`transaction ${hash} reverted`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`transaction ${hash} was not mined within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** mulberry32: the same workload on every run. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
