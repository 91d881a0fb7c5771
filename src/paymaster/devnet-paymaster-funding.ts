import { type Address, type Hex, numberToHex, type PublicClient, parseAbi, parseEther } from 'viem';
import { entryPointV06Abi } from '../erc4337/contracts/abis.ts';
import { create2DeployerAddress, devnetInstaller, failed, rpcClients } from '../erc4337/contracts/create2-deployment.ts';

/** What the devnet's paymasters get, unless they have it: a stake that counts (ERC-7562) and a deposit. */
export const devnetPaymasterFunding = {
  /** The bundler's default `min_stake_wei` and `min_unstake_delay_s`. */
  stakeWei: parseEther('1'),
  unstakeDelayS: 86_400,
  /** A deposit below this is topped up by `topUpWei` at start. */
  minimumDepositWei: parseEther('10'),
  topUpWei: parseEther('100'),
} as const;

/** Gas money for the impersonated deployer's transactions, on top of the stakes it sends. */
const deployerGasWei = parseEther('0.1');
/**
 * Each of these transactions uses 30k-85k. A fixed limit, not an estimate: anvil estimates against its
 * pending block, where another sender's transaction may already have written the same deposit slot.
 */
const transactionGas = 200_000n;

// BasePaymaster (v0.6 and v0.7): Ownable, its stake managed by the owner, its deposit by anyone.
const basePaymasterAbi = parseAbi([
  'function owner() view returns (address)',
  'function transferOwnership(address newOwner)',
  'function addStake(uint32 unstakeDelaySec) payable',
]);

export interface DevnetPaymaster {
  readonly entryPoint: Address;
  readonly address: Address;
}

interface Transaction {
  readonly from: 'installer' | 'deployer';
  readonly what: string;
  readonly to: Address;
  readonly data: { abi: typeof basePaymasterAbi | typeof entryPointV06Abi; functionName: string; args: readonly unknown[] };
  readonly value?: bigint;
}

/**
 * Makes the devnet's (deployed) paymasters usable, sending only what is missing, all in one block (a
 * second call only reads):
 * - Stake (1 ETH, one day): ERC-7562 lets only a staked paymaster (or factory) touch storage
 *   associated with a sender that is being deployed, which VerifyingPaymaster v0.6 does (senderNonce).
 * - Ownership: deployed through the CREATE2 deployer, a paymaster is owned by the deployer (Ownable
 *   takes msg.sender), which can never call it: its stake could never be added or withdrawn, nor its
 *   deposit withdrawn. anvil impersonates the deployer to stake and then hand ownership to anvil's #9.
 * - Deposit: topped up by 100 ETH from #9 while it is under 10 ETH (`entryPoint.depositTo`).
 */
export async function fundDevnetPaymasters(rpcUrl: string, paymasters: readonly DevnetPaymaster[]): Promise<void> {
  const clients = rpcClients(rpcUrl);
  const states = await readFundingStates(clients.publicClient, paymasters);
  const transactions = paymasters.flatMap((paymaster, index) => missingFunding(paymaster, states[index]!));
  if (transactions.length === 0) return;
  const sent = await sendFunding(clients, transactions);
  await Promise.all(
    sent.map(async ({ what, hash }) => {
      const receipt = await clients.publicClient
        .waitForTransactionReceipt({ hash, timeout: 60_000, pollingInterval: 100 })
        .catch((error: unknown) => failed(`Waiting for ${what} (${hash})`, error));
      if (receipt.status !== 'success') throw new Error(`${what} failed (transaction ${hash})`);
    }),
  );
}

/** A paymaster's owner (lower case) and its stake and deposit at its EntryPoint. */
interface FundingState {
  readonly owner: string;
  readonly stakeWei: bigint;
  readonly unstakeDelayS: number;
  readonly depositWei: bigint;
}

async function readFundingStates(publicClient: PublicClient, paymasters: readonly DevnetPaymaster[]): Promise<FundingState[]> {
  const [owners, infos] = await Promise.all([
    Promise.all(
      paymasters.map((paymaster) =>
        publicClient.readContract({ address: paymaster.address, abi: basePaymasterAbi, functionName: 'owner' }),
      ),
    ),
    Promise.all(
      paymasters.map((paymaster) =>
        publicClient.readContract({
          address: paymaster.entryPoint,
          abi: entryPointV06Abi,
          functionName: 'getDepositInfo',
          args: [paymaster.address],
        }),
      ),
    ),
  ]);
  return infos.map((info, index) => ({
    owner: owners[index]!.toLowerCase(),
    stakeWei: BigInt(info.stake),
    unstakeDelayS: Number(info.unstakeDelaySec),
    depositWei: BigInt(info.deposit),
  }));
}

/** The transactions a paymaster still needs: its stake, its ownership handed over, its deposit topped up. */
function missingFunding(paymaster: DevnetPaymaster, state: FundingState): Transaction[] {
  const installer = devnetInstaller.address;
  const { stakeWei, unstakeDelayS, minimumDepositWei, topUpWei } = devnetPaymasterFunding;
  const transactions: Transaction[] = [];
  const { owner } = state;
  const byOwner = owner === create2DeployerAddress ? 'deployer' : owner === installer.toLowerCase() ? 'installer' : undefined;
  const staked = state.stakeWei >= stakeWei && state.unstakeDelayS >= unstakeDelayS;
  if (!staked && byOwner) {
    transactions.push({
      from: byOwner,
      what: `staking the paymaster ${paymaster.address}`,
      to: paymaster.address,
      data: { abi: basePaymasterAbi, functionName: 'addStake', args: [unstakeDelayS] },
      value: stakeWei,
    });
  }
  if (byOwner === 'deployer') {
    transactions.push({
      from: 'deployer',
      what: `handing the paymaster ${paymaster.address} to ${installer}`,
      to: paymaster.address,
      data: { abi: basePaymasterAbi, functionName: 'transferOwnership', args: [installer] },
    });
  }
  if (state.depositWei < minimumDepositWei) {
    transactions.push({
      from: 'installer',
      what: `the deposit of the paymaster ${paymaster.address}`,
      to: paymaster.entryPoint,
      data: { abi: entryPointV06Abi, functionName: 'depositTo', args: [paymaster.address] },
      value: topUpWei,
    });
  }
  return transactions;
}

/** Sends the transactions (the deployer's impersonated and given its stakes and gas); their hashes. */
async function sendFunding(
  { publicClient, wallet }: ReturnType<typeof rpcClients>,
  transactions: readonly Transaction[],
): Promise<{ what: string; hash: Hex }[]> {
  const installer = devnetInstaller.address;
  const fromDeployer = transactions.filter((transaction) => transaction.from === 'deployer');
  if (fromDeployer.length > 0) {
    await publicClient.request({ method: 'anvil_impersonateAccount' as never, params: [create2DeployerAddress] as never });
    const needed = fromDeployer.reduce((sum, transaction) => sum + (transaction.value ?? 0n), deployerGasWei);
    await publicClient.request({
      method: 'anvil_setBalance' as never,
      params: [create2DeployerAddress, numberToHex(needed)] as never,
    });
  }
  // Each sender's transactions with consecutive nonces, all sent at once: one block on a devnet with a block time.
  const nonces = {
    installer: await publicClient.getTransactionCount({ address: installer, blockTag: 'pending' }),
    deployer: await publicClient.getTransactionCount({ address: create2DeployerAddress, blockTag: 'pending' }),
  };
  const sent: { what: string; hash: Hex }[] = [];
  try {
    for (const transaction of transactions) {
      const hash = await wallet
        .writeContract({
          ...(transaction.from === 'deployer' ? { account: create2DeployerAddress } : {}),
          chain: null,
          address: transaction.to,
          ...(transaction.data as { abi: typeof basePaymasterAbi; functionName: 'addStake'; args: [number] }),
          value: transaction.value,
          gas: transactionGas,
          nonce: nonces[transaction.from]++,
        })
        .catch((error: unknown) => failed(`Sending ${transaction.what}`, error));
      sent.push({ what: transaction.what, hash });
    }
  } finally {
    if (fromDeployer.length > 0)
      await publicClient.request({
        method: 'anvil_stopImpersonatingAccount' as never,
        params: [create2DeployerAddress] as never,
      });
  }
  return sent;
}
