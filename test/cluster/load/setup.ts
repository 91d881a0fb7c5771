import { type Address, createPublicClient, createWalletClient, type Hex, http } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { compileContracts } from '../../../src/contracts/compile.ts';
import { installErc4337Contracts } from '../../../src/erc4337/contracts/install.ts';
import type { ChainClient } from './chain-client.ts';
import type { ClusterTargets } from './contract.ts';
import type { Receivers } from './receivers.ts';
import { sleep } from './timed-request.ts';

export interface LoadAccounts {
  /** Enterprise plan (no limits): the main load. */
  key: string;
  /** Free plan (10 requests per second): the rate-limit probe. */
  freeKey: string;
}

/**
 * An API call through the load balancer, tried again (up to `timeoutMs`) while the cluster answers 5xx
 * or not at all: setup runs right after the cluster started. A 4xx is a mistake here: it throws.
 */
export async function callWithRetry(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
  timeoutMs = 30_000,
  // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    let response: Response | undefined;
    let text = '';
    try {
      response = await fetch(url, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(5_000),
      });
      text = await response.text();
    } catch (error) {
      last = String(error);
    }
    if (response && response.status < 300) return text ? JSON.parse(text) : undefined;
    if (response && response.status < 500) throw new Error(`${method} ${url}: HTTP ${response.status} ${text}`);
    if (response) last = `HTTP ${response.status} ${text.slice(0, 200)}`;
    await sleep(500);
  }
  throw new Error(`${method} ${url} failed for ${timeoutMs} ms: ${last}`);
}

// biome-ignore lint/suspicious/noExplicitAny: admin answers are inspected freely
export function adminCall(targets: ClusterTargets, method: string, path: string, body?: unknown): Promise<any> {
  return callWithRetry(`${targets.lbUrl}${path}`, method, { authorization: `Bearer ${targets.adminToken}` }, body);
}

async function accountWithKey(targets: ClusterTargets, plan: 'free' | 'enterprise'): Promise<string> {
  const account = await adminCall(targets, 'POST', '/admin/accounts', { name: `cluster load (${plan})`, plan });
  const created = await adminCall(targets, 'POST', `/admin/accounts/${account.id}/keys`, {
    name: 'cluster load',
    environment: 'test',
  });
  return created.key as string;
}

export async function createLoadAccounts(targets: ClusterTargets): Promise<LoadAccounts> {
  return { key: await accountWithKey(targets, 'enterprise'), freeKey: await accountWithKey(targets, 'free') };
}

/** Sets balances with anvil's dev method: no transaction, so no nonce shared with other senders on this chain. */
export async function fundFromDevnet(chain: ChainClient, addresses: readonly Address[], wei: bigint): Promise<void> {
  await Promise.all(addresses.map((address) => chain.call('anvil_setBalance', [address, `0x${wei.toString(16)}`])));
}

export interface LoadToken {
  address: Address;
  /** The token's deployer and minter: a fresh key of this run alone, so its nonces are ours only. */
  minter: PrivateKeyAccount;
  /** The block it was deployed in. */
  deployedIn: bigint;
}

/** A fresh DemoToken, deployed from a fresh key funded from the devnet; the ERC-4337 contracts installed if missing. */
export async function deployLoadToken(chain: ChainClient): Promise<LoadToken> {
  const minter = privateKeyToAccount(generatePrivateKey());
  await fundFromDevnet(chain, [minter.address], 10n ** 21n);
  const transport = http(chain.url, { timeout: 10_000, retryCount: 2 });
  const wallet = createWalletClient({ account: minter, chain: foundry, transport });
  const publicClient = createPublicClient({ chain: foundry, transport });
  const { DemoToken } = await compileContracts();
  const hash: Hex = await wallet.deployContract({
    abi: DemoToken.abi,
    bytecode: DemoToken.bytecode,
    args: ['Cluster Token', 'CLT', 18],
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: 30_000, pollingInterval: 200 });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying the load's token failed (${hash})`);
  await installErc4337Contracts(chain.url);
  return { address: receipt.contractAddress, minter, deployedIn: receipt.blockNumber };
}

/** A `token_transfer` webhook per inbox on the token, each inbox given its signing secret; their ids. */
export async function createTransferWebhooks(
  targets: ClusterTargets,
  key: string,
  token: Address,
  receivers: Receivers,
): Promise<string[]> {
  const ids: string[] = [];
  for (const inbox of receivers.inboxes) {
    const created = await callWithRetry(
      `${targets.lbUrl}/v1/webhooks`,
      'POST',
      { 'x-api-key': key },
      {
        url: receivers.urlOf(inbox.index),
        chain: targets.chain,
        network: targets.network,
        event_type: 'token_transfer',
        config: { contracts: [token] },
      },
    );
    inbox.secret = created.signing_secret;
    ids.push(created.id);
  }
  return ids;
}
