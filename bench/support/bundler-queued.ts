// Queued ops for bench/bundler.ts: `senders` fresh SimpleAccount v0.7 accounts, each sending
// `opsPerSender` ops with consecutive nonces (key 0) without waiting for any to land: the first deploys
// the account, the later ones carry no factory. Everything a wallet does before sending (one estimate
// per sender, for its deploying op, whose limits the later ops reuse; the signatures) is done first,
// so the burst measures the bundler: the senders run at once, each sending its ops one after another
// as soon as the previous send is answered. A refused send is counted (with the first message by
// nonce position) and the burst goes on; receipts are polled for every accepted op until all landed
// or the time is up.
import { type Address, type Hex, hexToBigInt, type PublicClient, parseEther, toHex } from 'viem';
import { entryPoint07Address, formatUserOperationRequest, type UserOperation } from 'viem/account-abstraction';
import { anvilCall } from './anvil-rpc.ts';
import { type BenchAccount, type BundlerTarget, bundlerCall, newAccount, opFees, type RpcReceipt } from './bundler-ops.ts';

export interface QueuedOptions {
  target: BundlerTarget;
  client: PublicClient;
  anvilUrl: string;
  recipient: Address;
  senders: number;
  opsPerSender: number;
  pollMs: number;
  /** From the burst's first send until the last receipt is given up. */
  timeoutMs: number;
  log: (line: string) => void;
}

export interface QueuedLanding {
  sender: Address;
  nonce: number;
  /** Start of its eth_sendUserOperation -> its receipt first seen (ms). */
  receiptMs: number;
  block: bigint;
  tx: Hex;
  success: boolean;
}

export interface QueuedResult {
  bundler: string;
  senders: number;
  opsPerSender: number;
  /** Ops the bundler accepted. */
  accepted: number;
  /** Refused sends by the op's position in its sender's run (0 = the deploying op), with the first message of each. */
  refusedByPosition: { count: number; first?: string }[];
  /** Estimates that failed (the sender's ops were then not sent). */
  estimateFailures: number;
  firstEstimateFailure?: string;
  landings: QueuedLanding[];
  /** The burst's first send -> the last receipt seen (ms). */
  spanMs: number;
  /** Senders all of whose ops landed, in nonce order by block. */
  inNonceOrder: number;
}

const concurrency = 16;

/** Runs `work` over `items`, at most `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

const rpcOp = (op: Partial<UserOperation<'0.7'>>) => formatUserOperationRequest(op as UserOperation<'0.7'>);
const firstLine = (error: unknown) => ((error as Error).message ?? String(error)).split('\n')[0]!.slice(0, 300);

/** The signed ops of one sender, nonces 0.. in order (undefined: its estimate failed). */
async function prepareSender(
  options: QueuedOptions,
  account: BenchAccount,
  fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
  firstValue: bigint,
): Promise<UserOperation<'0.7'>[]> {
  const { factory, factoryData } = await account.getFactoryArgs();
  if (!factory) throw new Error('the account gave no factory');
  const calls = await Promise.all(
    Array.from({ length: options.opsPerSender }, (_, index) =>
      account.encodeCalls([{ to: options.recipient, value: firstValue + BigInt(index) }]),
    ),
  );
  const base = { sender: account.address, nonce: 0n, callData: calls[0]!, factory, factoryData, ...fees };
  const estimate = await bundlerCall<{ preVerificationGas: Hex; verificationGasLimit: Hex; callGasLimit: Hex }>(
    options.target,
    'eth_estimateUserOperationGas',
    [
      rpcOp({
        ...base,
        signature: await account.getStubSignature(),
        callGasLimit: 0n,
        verificationGasLimit: 0n,
        preVerificationGas: 0n,
      }),
      entryPoint07Address,
    ],
  );
  // The deploying op needs the most gas: the later ones reuse its limits (they cannot be estimated
  // alone while the account is not deployed).
  const gas = {
    preVerificationGas: hexToBigInt(estimate.preVerificationGas),
    verificationGasLimit: hexToBigInt(estimate.verificationGasLimit),
    callGasLimit: hexToBigInt(estimate.callGasLimit),
  };
  const ops: UserOperation<'0.7'>[] = [];
  for (const [index, callData] of calls.entries()) {
    const unsigned = {
      sender: account.address,
      nonce: BigInt(index),
      callData,
      ...(index === 0 ? { factory, factoryData } : {}),
      ...fees,
      ...gas,
      signature: '0x' as Hex,
    } as UserOperation<'0.7'>;
    ops.push({ ...unsigned, signature: await account.signUserOperation(unsigned) });
  }
  return ops;
}

export async function measureQueued(options: QueuedOptions): Promise<QueuedResult> {
  const { target, client } = options;
  const accounts: BenchAccount[] = [];
  for (let index = 0; index < options.senders; index++) accounts.push(await newAccount(client));
  await eachLimited(accounts, concurrency, async (account) => {
    await anvilCall(options.anvilUrl, 'anvil_setBalance', [account.address, toHex(parseEther('0.1'))]);
  });
  const fees = await opFees(client);
  const result: QueuedResult = {
    bundler: target.name,
    senders: options.senders,
    opsPerSender: options.opsPerSender,
    accepted: 0,
    refusedByPosition: Array.from({ length: options.opsPerSender }, () => ({ count: 0 })),
    estimateFailures: 0,
    landings: [],
    spanMs: Number.NaN,
    inNonceOrder: 0,
  };
  const prepared = new Map<BenchAccount, UserOperation<'0.7'>[]>();
  await eachLimited(accounts, 8, async (account) => {
    try {
      prepared.set(account, await prepareSender(options, account, fees, 10_000n * BigInt(prepared.size + 1)));
    } catch (error) {
      result.estimateFailures++;
      result.firstEstimateFailure ??= firstLine(error);
    }
  });
  options.log(`queued ops on ${target.name}: ${prepared.size} senders ready; sending ${options.opsPerSender} ops each at once`);

  const sent: { hash: Hex; sender: Address; nonce: number; sendAt: number }[] = [];
  const burstFrom = performance.now();
  await Promise.all(
    [...prepared.entries()].map(async ([account, ops]) => {
      for (const [position, op] of ops.entries()) {
        const sendAt = performance.now();
        try {
          const hash = await bundlerCall<Hex>(target, 'eth_sendUserOperation', [rpcOp(op), entryPoint07Address]);
          sent.push({ hash, sender: account.address, nonce: position, sendAt });
        } catch (error) {
          const refused = result.refusedByPosition[position]!;
          refused.count++;
          refused.first ??= firstLine(error);
        }
      }
    }),
  );
  result.accepted = sent.length;

  // Receipts: every op still missing is asked each round, a few calls at a time.
  const deadline = burstFrom + options.timeoutMs;
  let missing = [...sent];
  let lastSeen = Number.NaN;
  while (missing.length > 0 && performance.now() < deadline) {
    const still: typeof missing = [];
    await eachLimited(missing, concurrency, async (entry) => {
      const receipt = await bundlerCall<RpcReceipt | null>(target, 'eth_getUserOperationReceipt', [entry.hash]).catch(() => null);
      if (!receipt) {
        still.push(entry);
        return;
      }
      const seenAt = performance.now();
      lastSeen = Number.isNaN(lastSeen) ? seenAt : Math.max(lastSeen, seenAt);
      result.landings.push({
        sender: entry.sender,
        nonce: entry.nonce,
        receiptMs: seenAt - entry.sendAt,
        block: hexToBigInt(receipt.receipt.blockNumber),
        tx: receipt.receipt.transactionHash,
        success: receipt.success,
      });
    });
    missing = still;
    if (missing.length > 0) await new Promise((resolve) => setTimeout(resolve, options.pollMs));
  }
  result.spanMs = lastSeen - burstFrom;
  for (const account of prepared.keys()) {
    const mine = result.landings.filter((landing) => landing.sender === account.address).sort((a, b) => a.nonce - b.nonce);
    const ordered = mine.every((landing, index) => index === 0 || landing.block >= mine[index - 1]!.block);
    if (mine.length === options.opsPerSender && ordered) result.inNonceOrder++;
  }
  options.log(
    `queued ops on ${target.name}: ${result.accepted} accepted, ${result.landings.length} landed in ${(result.spanMs / 1000).toFixed(1)} s`,
  );
  return result;
}
