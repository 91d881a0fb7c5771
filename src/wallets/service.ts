import type { Kysely } from 'kysely';
import { type Address, getAddress, isAddress, type PublicClient } from 'viem';
import type { Principal } from '../auth/principal.ts';
import { publicClientFor } from '../chains/public-client.ts';
import type { ChainRegistry, Network } from '../chains/registry.ts';
import { resolveFieldNetwork } from '../chains/resolve-field-network.ts';
import { AppError, forbidden, invalidRequest, notFound } from '../core/errors.ts';
import type { WalletRow } from '../db/tables/bundler.ts';
import type { Tables } from '../db/tables.ts';
import { assertAddressChecksum } from '../http/address-param.ts';
import { findDeployment } from './deployment-lookup.ts';
import { entryPointNonceAbi, simpleAccountFactoryAbi } from './wallet-abis.ts';

export type EntryPointVersion = '0.6' | '0.7' | '0.8';

export interface CreateWalletInput {
  owner: string;
  chain: string;
  network?: string;
  salt?: string | number;
  entry_point_version?: EntryPointVersion;
}

export interface WalletListItem {
  address: string;
  owner: string;
  chain: string;
  network: string;
  status: 'counterfactual' | 'deployed';
  factory: string;
  entry_point: string;
  entry_point_version: EntryPointVersion;
  salt: string;
  created_at: string;
}

export interface WalletView extends WalletListItem {
  nonce: number | string;
  deployed_at: string | null;
  deploy_tx: string | null;
}

const maxUint256 = (1n << 256n) - 1n;

function parseSalt(input: string | number | undefined): bigint {
  if (input === undefined) return 0n;
  const text = typeof input === 'number' && Number.isSafeInteger(input) && input >= 0 ? String(input) : input;
  if (typeof text !== 'string' || !/^(0x[0-9a-fA-F]{1,64}|[0-9]{1,78})$/.test(text)) {
    throw invalidRequest('salt', 'must be a uint256, as a decimal string or 0x hex');
  }
  const salt = BigInt(text);
  if (salt > maxUint256) throw invalidRequest('salt', 'is larger than a uint256');
  return salt;
}

export function contractsOf(network: Network, version: EntryPointVersion): { entryPoint: Address; factory: Address } {
  const config = network.config.erc4337;
  if (version === '0.6') return { entryPoint: getAddress(config.entryPointV06), factory: getAddress(config.factoryV06) };
  if (version === '0.8') return { entryPoint: getAddress(config.entryPointV08), factory: getAddress(config.factoryV08) };
  return { entryPoint: getAddress(config.entryPointV07), factory: getAddress(config.factoryV07) };
}

/**
 * Smart wallets (SimpleAccount): counterfactual addresses from the factory, kept per API key; deployed
 * once the index sees the EntryPoint's AccountDeployed event for them (deployment-watcher.ts) or code
 * appears at the address.
 */
export function createWalletService(deps: WalletDeps) {
  return {
    create: (principal: Principal, input: CreateWalletInput) => createWallet(deps, principal, input),
    get: (principal: Principal, address: string, filter: { chain?: string; network?: string }) =>
      getWallet(deps, principal, address, filter),
    list: (principal: Principal, query: { chain?: string; offset: number; limit: number }) => listWallets(deps, principal, query),
  };
}

export type WalletService = ReturnType<typeof createWalletService>;

interface WalletDeps {
  db: Kysely<Tables>;
  chains: ChainRegistry;
}

function evmNetwork(chains: ChainRegistry, principal: Principal, chain: string, network?: string): Network {
  // Named by a body field (create) or query parameter (get): unknown, a 400 naming it.
  const target = resolveFieldNetwork(chains.list(), principal, chain, network);
  if (target.config.kind !== 'evm')
    throw invalidRequest('chain', `smart wallets live on EVM chains; '${chain}' is ${target.config.kind}`);
  return target;
}

function listItemOf(row: WalletRow): WalletListItem {
  return {
    address: row.address,
    owner: row.owner,
    chain: row.chain,
    network: row.network.split('/')[1] ?? row.network,
    status: row.deploy_tx || row.deployed_at ? 'deployed' : 'counterfactual',
    factory: row.factory,
    entry_point: row.entry_point,
    entry_point_version: row.entry_point_version,
    salt: String(row.salt),
    created_at: new Date(row.created_at).toISOString(),
  };
}

async function detailedView({ db, chains }: WalletDeps, row: WalletRow): Promise<WalletView> {
  const [chain, name] = row.network.split('/') as [string, string];
  const network = chains.get(chain, name);
  const client = publicClientFor(network);
  // The deployment watcher records deploy_tx from the AccountDeployed event; code at the address
  // also means deployed (by a transaction the index did not see, or before it caught up).
  const [nonce, code] = await Promise.all([
    client.readContract({
      address: row.entry_point as Address,
      abi: entryPointNonceAbi,
      functionName: 'getNonce',
      args: [row.address as Address, 0n],
    }),
    row.deploy_tx ? Promise.resolve('0x1') : client.getCode({ address: row.address as Address }),
  ]);
  const deployed = Boolean(code && code !== '0x');
  // Deployed where the watcher did not see it (the wallet was created after its deployment was
  // indexed, or the index started after it): its transaction and time are found and recorded now.
  const recorded = deployed && !row.deploy_tx ? await recordDeployment(db, client, row) : row;
  return {
    ...listItemOf(recorded),
    status: deployed ? 'deployed' : 'counterfactual',
    nonce: nonce <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(nonce) : nonce.toString(),
    deployed_at: recorded.deployed_at ? new Date(recorded.deployed_at).toISOString() : null,
    deploy_tx: recorded.deploy_tx,
  };
}

/**
 * `deploy_tx` and `deployed_at` of a wallet with code, from the chain, written together in one update
 * (for every key's row of the wallet); the row unchanged when the chain cannot say (a pruned node).
 */
async function recordDeployment(db: Kysely<Tables>, client: PublicClient, row: WalletRow): Promise<WalletRow> {
  const found = await findDeployment(client, row.address as Address, row.entry_point as Address).catch(() => undefined);
  if (found === undefined) return row;
  const deployedAt = new Date(Number(found.timestamp) * 1000);
  await db
    .updateTable('wallets')
    .set({ deploy_tx: found.txHash, deployed_at: deployedAt })
    .where('network', '=', row.network)
    .where('address', '=', row.address)
    .where('deploy_tx', 'is', null)
    .execute();
  return { ...row, deploy_tx: found.txHash, deployed_at: deployedAt };
}

// A key sees the wallets it created; a dashboard session sees every wallet of the account.
const ownedWallets = (db: Kysely<Tables>, principal: Principal) =>
  principal.session
    ? db.selectFrom('wallets').where('account_id', '=', principal.accountId)
    : db.selectFrom('wallets').where('key_id', '=', principal.keyId);

async function createWallet({ db, chains }: WalletDeps, principal: Principal, input: CreateWalletInput): Promise<WalletView> {
  if (principal.session) throw forbidden('smart wallets belong to the API key that creates them: create them with a key');
  if (!isAddress(input.owner, { strict: false })) throw invalidRequest('owner', 'must be a 0x address of 40 hex digits');
  assertAddressChecksum('owner', input.owner);
  const owner = getAddress(input.owner);
  // No key signs for the zero address: a wallet owned by it could never send an operation.
  if (BigInt(owner) === 0n) throw invalidRequest('owner', 'must not be the zero address: no key signs for it');
  const salt = parseSalt(input.salt);
  const version = input.entry_point_version ?? '0.7';
  const network = evmNetwork(chains, principal, input.chain, input.network);
  const { entryPoint, factory } = contractsOf(network, version);
  const client = publicClientFor(network);
  const factoryCode = await client.getCode({ address: factory });
  if (!factoryCode || factoryCode === '0x') {
    throw new AppError(
      'service_unavailable',
      `the SimpleAccountFactory for EntryPoint v${version} (${factory}) has no code on ${network.config.chain}/${network.config.network}; name the network's factory in its erc4337 settings`,
    );
  }
  const address = await client.readContract({
    address: factory,
    abi: simpleAccountFactoryAbi,
    functionName: 'getAddress',
    args: [owner, salt],
  });
  const networkName = `${network.config.chain}/${network.config.network}`;
  await db
    .insertInto('wallets')
    .values({
      key_id: principal.keyId,
      account_id: principal.accountId,
      network: networkName,
      address,
      chain: network.config.chain,
      owner,
      salt: salt.toString(),
      entry_point_version: version,
      entry_point: entryPoint,
      factory,
    })
    // Creating the same wallet again returns it as it was.
    .onConflict((oc) => oc.columns(['key_id', 'network', 'address']).doNothing())
    .execute();
  const row = await db
    .selectFrom('wallets')
    .selectAll()
    .where('key_id', '=', principal.keyId)
    .where('network', '=', networkName)
    .where('address', '=', address)
    .executeTakeFirstOrThrow();
  return detailedView({ db, chains }, row);
}

async function getWallet(
  { db, chains }: WalletDeps,
  principal: Principal,
  address: string,
  filter: { chain?: string; network?: string },
): Promise<WalletView> {
  if (!isAddress(address, { strict: false })) throw invalidRequest('address', 'must be a 0x address of 40 hex digits');
  assertAddressChecksum('address', address);
  // A network is named within its chain ("mainnet" of which?): alone it would be silently ignored.
  if (filter.network && !filter.chain)
    throw invalidRequest('chain', `is needed with network '${filter.network}' (a network is named within its chain)`);
  let query = ownedWallets(db, principal).selectAll().where('address', '=', getAddress(address));
  if (filter.chain) {
    const network = evmNetwork(chains, principal, filter.chain, filter.network);
    query = query.where('network', '=', `${network.config.chain}/${network.config.network}`);
  }
  const row = await query.orderBy('created_at', 'desc').limit(1).executeTakeFirst();
  // Another key's wallet is as absent as one never created.
  if (!row) throw notFound(`wallet '${address}' was not created with this API key`);
  return detailedView({ db, chains }, row);
}

async function listWallets({ db }: WalletDeps, principal: Principal, query: { chain?: string; offset: number; limit: number }) {
  let base = ownedWallets(db, principal);
  if (query.chain) base = base.where('chain', '=', query.chain);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('address').offset(query.offset).limit(query.limit).execute(),
    base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { wallets: rows.map(listItemOf), total: Number(count.total) };
}
