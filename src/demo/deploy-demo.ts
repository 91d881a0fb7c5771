import type { Logger } from 'pino';
import {
  type Abi,
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeDeployData,
  encodeFunctionData,
  type Hash,
  type Hex,
  http,
  keccak256,
  type PublicClient,
  toHex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { type ContractArtifacts, compileContracts } from '../contracts/compile.ts';
import { installMulticall3 } from '../contracts/install-multicall3.ts';
import { create2Address, create2Calldata, create2DeployerAddress } from './create2.ts';
import { apeTokenUri } from './demo-metadata.ts';
import { demoAccounts, demoItems, demoNft, demoSpamNft, demoSpamToken, demoToken } from './demo-plan.ts';
import { type DemoPrice, demoTokenPrices } from './demo-prices.ts';

/** anvil's account 0 key: public knowledge (its test mnemonic), funded on every fresh anvil. */
const devAccount = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
/** One salt for all: the init codes differ, so do the addresses. A new salt moves every demo contract. */
const demoSalt = keccak256(toHex('blockyard demo v1'));
/** A phase waits for its blocks: generous for a devnet with a long block time (evm_mine usually ends it at once). */
const receiptTimeoutMs = 60_000;

export interface DemoContracts {
  /** DemoToken "Blockyard Demo USD" (BDUSD, 6 decimals). */
  token: Address;
  /** DemoNft "Blockyard Demo Apes" (BDAPE). */
  nft: Address;
  /** DemoItems "Blockyard Demo Items" (BDITEM, ERC-1155). */
  items: Address;
  /** DemoSpamToken: a spam-shaped ERC-20, airdropped to anvil's account 5 and 24 other addresses. */
  spamToken: Address;
  /** DemoSpamNft: a spam-shaped ERC-721 collection, airdropped to the same addresses. */
  spamNft: Address;
}

export interface DemoDeployment extends DemoContracts {
  /** False when everything was already there (a second start on the same devnet). */
  changed: boolean;
  /** The demo token's fixed USD price, for the service's price table. */
  prices: DemoPrice[];
}

type Kind = keyof DemoContracts;
interface Call {
  label: string;
  to: Address;
  data: Hex;
}

/** Where the demo contracts are on every devnet (CREATE2), without touching one. */
export async function demoContractAddresses(): Promise<DemoContracts> {
  const initCodes = demoInitCodes(await compileContracts());
  return {
    token: create2Address(demoSalt, initCodes.token),
    nft: create2Address(demoSalt, initCodes.nft),
    items: create2Address(demoSalt, initCodes.items),
    spamToken: create2Address(demoSalt, initCodes.spamToken),
    spamNft: create2Address(demoSalt, initCodes.spamNft),
  };
}

/**
 * Deploys the demo token, NFT collection and ERC-1155 items at fixed CREATE2 addresses, mints them to
 * the dev account and moves some to anvil's accounts 1 and 2 (and 3). Also installs Multicall3.
 * Idempotent: a contract with code is not deployed again, a contract with supply is not minted again.
 *
 * @example
 * const demo = await deployDemo({ rpcUrl: devnet.url, log: logger });
 */
export async function deployDemo(options: {
  rpcUrl: string;
  log: Pick<Logger, 'info'>;
  chain?: string;
  network?: string;
}): Promise<DemoDeployment> {
  const { rpcUrl, log, chain = 'ethereum', network = 'devnet' } = options;
  const artifacts = await compileContracts();
  const transport = http(rpcUrl, { timeout: 30_000, retryCount: 0 });
  const client = createPublicClient({ transport });
  const mine = () => createTestClient({ mode: 'anvil', transport }).mine({ blocks: 1 });
  const wallet = createWalletClient({ account: devAccount, chain: { ...foundry, id: await client.getChainId() }, transport });

  await installMulticall3(rpcUrl);
  if ((await client.getCode({ address: create2DeployerAddress })) === undefined) {
    throw new Error(`the devnet has no CREATE2 deployer at ${create2DeployerAddress}: the demo contracts need it`);
  }
  const initCodes = demoInitCodes(artifacts);
  const contracts = await demoContractAddresses();
  let nonce = await client.getTransactionCount({ address: devAccount.address, blockTag: 'pending' });
  let sent = 0;
  const runPhase = async (calls: Call[]) => {
    const hashes: { label: string; hash: Hash }[] = [];
    for (const call of calls) {
      hashes.push({ label: call.label, hash: await wallet.sendTransaction({ to: call.to, data: call.data, nonce: nonce++ }) });
    }
    sent += calls.length;
    await waitForPhase(client, mine, hashes);
  };

  const kinds: Kind[] = ['token', 'nft', 'items', 'spamToken', 'spamNft'];
  const missing: Kind[] = [];
  for (const kind of kinds) {
    if ((await client.getCode({ address: contracts[kind] })) === undefined) missing.push(kind);
  }
  await runPhase(
    missing.map((kind) => ({
      label: `deploy ${kind}`,
      to: create2DeployerAddress,
      data: create2Calldata(demoSalt, initCodes[kind]),
    })),
  );

  const unseeded = await unseededContracts(client, artifacts, contracts);
  const call = (kind: Kind, abi: Abi, functionName: string, args: readonly unknown[]): Call => ({
    label: `${kind}.${functionName}`,
    to: contracts[kind],
    data: encodeFunctionData({ abi, functionName, args }),
  });
  const token = (name: string, args: readonly unknown[]) => call('token', artifacts.DemoToken.abi, name, args);
  const nft = (name: string, args: readonly unknown[]) => call('nft', artifacts.DemoNft.abi, name, args);
  const items = (name: string, args: readonly unknown[]) => call('items', artifacts.DemoItems.abi, name, args);
  const spamToken = call('spamToken', artifacts.DemoSpamToken.abi, 'airdrop', [
    demoSpamToken.airdrop.to,
    demoSpamToken.airdrop.amount,
  ]);
  const spamNft = call('spamNft', artifacts.DemoSpamNft.abi, 'airdrop', [demoSpamNft.airdrop.to]);
  const { dev } = demoAccounts;

  // Mints first, then transfers in a later block: each transfer's gas estimate needs the minted balance.
  await runPhase([
    ...(unseeded.has('token') ? [token('mint', [demoToken.mint.to, demoToken.mint.amount])] : []),
    ...(unseeded.has('nft')
      ? [
          ...demoNft.apes.flatMap((ape) => [nft('mint', [dev, ape.id]), nft('setTokenURI', [ape.id, apeTokenUri(ape)])]),
          nft('setContractURI', [demoNft.contractUri]),
        ]
      : []),
    ...(unseeded.has('items')
      ? [items('mintBatch', [dev, demoItems.mint.ids, demoItems.mint.amounts]), items('setContractURI', [demoItems.contractUri])]
      : []),
    ...(unseeded.has('spamToken') ? [spamToken] : []),
    ...(unseeded.has('spamNft') ? [spamNft] : []),
  ]);
  await runPhase([
    ...(unseeded.has('token') ? demoToken.transfers.map(({ to, amount }) => token('transfer', [to, amount])) : []),
    ...(unseeded.has('nft') ? demoNft.transfers.map(({ to, id }) => nft('transferFrom', [dev, to, id])) : []),
    ...(unseeded.has('items')
      ? [
          items('safeTransferFrom', [dev, demoItems.transfer.to, demoItems.transfer.id, demoItems.transfer.amount, '0x']),
          items('safeBatchTransferFrom', [
            dev,
            demoItems.batchTransfer.to,
            demoItems.batchTransfer.ids,
            demoItems.batchTransfer.amounts,
            '0x',
          ]),
        ]
      : []),
  ]);

  log.info(
    { ...contracts, transactions: sent, deployed: missing, seeded: [...unseeded] },
    sent > 0 ? 'demo contracts deployed on the devnet' : 'demo contracts already on the devnet',
  );
  return {
    ...contracts,
    changed: sent > 0,
    prices: demoTokenPrices(contracts.token, chain, network),
  };
}

function demoInitCodes(artifacts: ContractArtifacts): Record<Kind, Hex> {
  const initCode = (artifact: { abi: Abi; bytecode: Hex }, args: readonly unknown[]) =>
    encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args });
  return {
    token: initCode(artifacts.DemoToken, demoToken.constructorArgs),
    nft: initCode(artifacts.DemoNft, demoNft.constructorArgs),
    items: initCode(artifacts.DemoItems, demoItems.constructorArgs),
    spamToken: initCode(artifacts.DemoSpamToken, demoSpamToken.constructorArgs),
    spamNft: initCode(artifacts.DemoSpamNft, demoSpamNft.constructorArgs),
  };
}

/** A contract with any supply was seeded by an earlier run (its holders may have moved things since). */
async function unseededContracts(
  client: PublicClient,
  artifacts: ContractArtifacts,
  contracts: DemoContracts,
): Promise<Set<Kind>> {
  const [tokenSupply, nftSupply, coinSupply, spamTokenSupply, spamNftSupply] = (await Promise.all([
    client.readContract({ address: contracts.token, abi: artifacts.DemoToken.abi, functionName: 'totalSupply' }),
    client.readContract({ address: contracts.nft, abi: artifacts.DemoNft.abi, functionName: 'totalSupply' }),
    client.readContract({ address: contracts.items, abi: artifacts.DemoItems.abi, functionName: 'totalSupply', args: [1n] }),
    client.readContract({ address: contracts.spamToken, abi: artifacts.DemoSpamToken.abi, functionName: 'totalSupply' }),
    client.readContract({ address: contracts.spamNft, abi: artifacts.DemoSpamNft.abi, functionName: 'totalSupply' }),
  ])) as bigint[];
  const unseeded = new Set<Kind>();
  if (tokenSupply === 0n) unseeded.add('token');
  if (nftSupply === 0n) unseeded.add('nft');
  if (coinSupply === 0n) unseeded.add('items');
  if (spamTokenSupply === 0n) unseeded.add('spamToken');
  if (spamNftSupply === 0n) unseeded.add('spamNft');
  return unseeded;
}

/** On a devnet with a block time, mines at once rather than waiting for the next block. */
async function waitForPhase(
  client: PublicClient,
  mine: () => Promise<void>,
  sent: { label: string; hash: Hash }[],
): Promise<void> {
  const last = sent.at(-1);
  if (last === undefined) return;
  const mined = await client.getTransactionReceipt({ hash: last.hash }).catch(() => undefined);
  if (mined === undefined) await mine();
  for (const { label, hash } of sent) {
    const receipt = await client.waitForTransactionReceipt({ hash, timeout: receiptTimeoutMs, pollingInterval: 100 });
    if (receipt.status !== 'success') throw new Error(`demo deployment: ${label} reverted (transaction ${hash})`);
  }
}
