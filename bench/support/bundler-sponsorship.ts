// Gas sponsorship on the bundler benchmark's service and devnet (issue 11's two targets), after its
// rounds. One gas policy of the bench's enterprise account with a few caps (every call goes through the
// reservation's checks). Then:
// - sponsor calls: fresh counterfactual SimpleAccount v0.7 ops (permissionless `toSimpleSmartAccount`,
//   factory args, a 0-wei call to the recipient, the gas fields of one eth_estimateUserOperationGas made
//   with ERC-7677 stub data), each sponsored once, one call at a time, interleaved with the same
//   endpoints' floors: eth_chainId on the bundler endpoint, GET /v1/gas/policies/{id} (key check, one
//   read) and pm_getPaymasterStubData, then POST /v1/gas/sponsor and pm_getPaymasterData;
// - sponsored sends: accounts that hold no ETH, each one op that deploys it and one plain op, sent by
//   viem's bundler client with Blockyard as its ERC-7677 paymaster (`paymasterContext: { policy_id }`),
//   each after a random 0-1 s pause as the rounds are. viem's own calls are timed through its fetch;
//   anvil's head is read just before its eth_sendUserOperation request and just before the whole call.
// Every call is bounded by a timeout, each loop by the section's deadline.
import { setTimeout as sleep } from 'node:timers/promises';
import { type Address, type Hex, hexToBigInt, http, type PublicClient } from 'viem';
import {
  createBundlerClient,
  createPaymasterClient,
  entryPoint07Address,
  formatUserOperationRequest,
  type UserOperation,
} from 'viem/account-abstraction';
import { foundry } from 'viem/chains';
import { pollHeads } from './bundler-heads.ts';
import {
  type BenchAccount,
  type BundlerTarget,
  bundlerCall,
  newAccount,
  type OpKind,
  opFees,
  waitForReceipt,
} from './bundler-ops.ts';

/** The policy's rules: caps far above what the section spends, so none refuses, but each is checked. */
export const sponsorshipPolicyRules = {
  max_gas_usd: '10000',
  max_gas_usd_per_sender: '50',
  max_ops_per_sender: 10,
  max_per_user_per_day: 10,
  rate_limit: { ops: 100_000, per_seconds: 3_600 },
} as const;

export const sponsorCallNames = {
  chainId: 'eth_chainId, bundler endpoint (floor)',
  policy: 'GET /v1/gas/policies/{id} (REST floor: key, one read)',
  stub: 'pm_getPaymasterStubData',
  sponsor: 'POST /v1/gas/sponsor',
  paymasterData: 'pm_getPaymasterData',
} as const;
export type SponsorCall = keyof typeof sponsorCallNames;

export interface SponsorLatency {
  /** Round trips (ms) of the measured iterations, by call. */
  calls: Record<SponsorCall, number[]>;
  /** What each sponsorship reserved against the policy (USD). */
  sponsoredUsd: number[];
  /** The gas fields every op of the loop carried (from the one estimate). */
  gas: { preVerificationGas: bigint; verificationGasLimit: bigint; callGasLimit: bigint };
}

export interface SponsoredOpSample {
  kind: OpKind;
  sender: Address;
  /** viem's sendUserOperation, whole: nonce and fee reads, stub data, estimate, paymaster data, signing, the send. */
  callMs: number;
  /** Blockyard's round trips within it. */
  stubMs: number;
  estimateMs: number;
  paymasterDataMs: number;
  sendMs: number;
  /** anvil's head just before viem's call, and just before its eth_sendUserOperation request. */
  headAtCall: bigint;
  headAtSend: bigint;
  /** performance.now() at the eth_sendUserOperation request's start, and when the receipt was first seen. */
  sendAt: number;
  receiptAt: number;
  block: bigint;
  /** The paymaster the receipt names. */
  paymaster: Address | null;
  success: boolean;
}

export interface SponsorshipResult {
  latency: SponsorLatency;
  ops: SponsoredOpSample[];
  /** performance.now() when each block was first seen on anvil during the sponsored sends. */
  arrivals: ReadonlyMap<bigint, number>;
  headPollErrors: number;
  failures: string[];
  /** The deadline came before every call or op was made. */
  cutShort: boolean;
}

export interface SponsorshipOptions {
  baseUrl: string;
  apiKey: string;
  anvilUrl: string;
  client: PublicClient;
  recipient: Address;
  calls: number;
  /** Measured sponsored ops (half deploy, half plain). */
  ops: number;
  receiptPollMs: number;
  receiptTimeoutMs: number;
  /** performance.now() by which the section must end its loops. */
  deadline: number;
  log: (line: string) => void;
}

const callTimeoutMs = 5_000;
const sendTimeoutMs = 15_000;
const warmupCalls = 5;
const warmupAccounts = 1;
/** Failures allowed in the section before it stops. */
const maxFailures = 5;
const chainIdHex = `0x${foundry.id.toString(16)}`;

type RpcOp = ReturnType<typeof formatUserOperationRequest>;

export async function measureSponsorship(options: SponsorshipOptions): Promise<SponsorshipResult> {
  const { client, log } = options;
  const target: BundlerTarget = {
    name: 'blockyard',
    rpcUrl: `${options.baseUrl}/v1/bundler/ethereum/devnet`,
    headers: { 'x-api-key': options.apiKey },
  };
  const rest = async <T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${options.baseUrl}${path}`, {
      method,
      headers: { 'x-api-key': options.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(callTimeoutMs),
    });
    const text = await response.text();
    if (response.status !== 200 && response.status !== 201)
      throw new Error(`${method} ${path}: HTTP ${response.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  };
  const failures: string[] = [];
  let cutShort = false;
  const failed = (line: string) => {
    failures.push(`sponsorship: ${line}`);
    log(`failed: ${failures.at(-1)}`);
    return failures.length >= maxFailures;
  };

  const policy = await rest<{ id: string }>('POST', '/v1/gas/policies', {
    name: 'bench',
    chain: 'ethereum',
    network: 'devnet',
    rules: sponsorshipPolicyRules,
  });
  const context = { policy_id: policy.id };

  // The ops of the latency loop: two fresh accounts per iteration (one for each sponsor call).
  const iterations = warmupCalls + options.calls;
  const accounts: BenchAccount[] = [];
  for (let index = 0; index < iterations * 2; index++) accounts.push(await newAccount(client));
  const fees = await opFees(client);
  const stubSignature = await accounts[0]!.getStubSignature();
  const opOf = async (account: BenchAccount, gas: Partial<SponsorLatency['gas']>, withSignature: boolean): Promise<RpcOp> => {
    const [{ factory, factoryData }, callData] = await Promise.all([
      account.getFactoryArgs(),
      account.encodeCalls([{ to: options.recipient, value: 0n, data: '0x' }]),
    ]);
    return formatUserOperationRequest({
      sender: account.address,
      nonce: 0n,
      factory,
      factoryData,
      callData,
      ...fees,
      ...gas,
      ...(withSignature ? { signature: stubSignature } : {}),
    } as UserOperation<'0.7'>);
  };
  // Realistic gas fields: one estimate with the stub data, as viem's prepareUserOperation makes it.
  const zeroGas = { preVerificationGas: 0n, verificationGasLimit: 0n, callGasLimit: 0n };
  const first = await opOf(accounts[0]!, zeroGas, true);
  const stub = await bundlerCall<Record<string, Hex>>(
    target,
    'pm_getPaymasterStubData',
    [first, entryPoint07Address, chainIdHex, context],
    callTimeoutMs,
  );
  const { isFinal: _, ...stubFields } = stub;
  const estimate = await bundlerCall<Record<'preVerificationGas' | 'verificationGasLimit' | 'callGasLimit', Hex>>(
    target,
    'eth_estimateUserOperationGas',
    [{ ...first, ...stubFields }, entryPoint07Address],
    callTimeoutMs * 3,
  );
  const gas = {
    preVerificationGas: hexToBigInt(estimate.preVerificationGas),
    verificationGasLimit: hexToBigInt(estimate.verificationGasLimit),
    callGasLimit: hexToBigInt(estimate.callGasLimit),
  };
  const ops: { sponsor: RpcOp; paymasterData: RpcOp }[] = [];
  for (let index = 0; index < iterations; index++)
    ops.push({
      sponsor: await opOf(accounts[index * 2]!, gas, false),
      paymasterData: await opOf(accounts[index * 2 + 1]!, gas, true),
    });
  log(`sponsorship: policy ${policy.id}, ${ops.length * 2} ops for the sponsor calls`);

  // The latency loop: one call at a time, a short random pause between iterations (an enterprise key:
  // no compute-unit limit; a growth key's 2,000 CU/s was hit at about 156 CU an iteration).
  const calls: Record<SponsorCall, number[]> = { chainId: [], policy: [], stub: [], sponsor: [], paymasterData: [] };
  const sponsoredUsd: number[] = [];
  latency: for (let index = 0; index < iterations; index++) {
    if (performance.now() > options.deadline) {
      cutShort = true;
      log(`sponsorship: time budget spent after ${index} of ${iterations} call iterations`);
      break;
    }
    const measured = index >= warmupCalls;
    const { sponsor, paymasterData } = ops[index]!;
    const steps: [SponsorCall, () => Promise<unknown>][] = [
      ['chainId', () => bundlerCall(target, 'eth_chainId', [], callTimeoutMs)],
      ['policy', () => rest('GET', `/v1/gas/policies/${policy.id}`)],
      [
        'stub',
        () =>
          bundlerCall(
            target,
            'pm_getPaymasterStubData',
            [paymasterData, entryPoint07Address, chainIdHex, context],
            callTimeoutMs,
          ),
      ],
      [
        'sponsor',
        async () => {
          const answer = await rest<{ sponsored_gas_usd: string; paymasterData?: Hex }>('POST', '/v1/gas/sponsor', {
            chain: 'ethereum',
            policy_id: policy.id,
            user_operation: sponsor,
          });
          if (!answer.paymasterData) throw new Error(`POST /v1/gas/sponsor answered no paymasterData: ${JSON.stringify(answer)}`);
          if (measured) sponsoredUsd.push(Number(answer.sponsored_gas_usd));
        },
      ],
      [
        'paymasterData',
        () =>
          bundlerCall(target, 'pm_getPaymasterData', [paymasterData, entryPoint07Address, chainIdHex, context], callTimeoutMs),
      ],
    ];
    for (const [name, step] of steps) {
      const from = performance.now();
      try {
        await step();
      } catch (error) {
        if (failed(`${sponsorCallNames[name]}: ${(error as Error).message}`)) break latency;
        continue;
      }
      if (measured) calls[name].push(performance.now() - from);
    }
    await sleep(20 + Math.random() * 40);
  }

  // The sponsored sends: accounts with no ETH, a warm-up account first.
  const heads = pollHeads(options.anvilUrl);
  const samples: SponsoredOpSample[] = [];
  try {
    const senders: BenchAccount[] = [];
    for (let index = 0; index < warmupAccounts + options.ops / 2; index++) senders.push(await newAccount(client));
    sends: for (const [index, account] of senders.entries()) {
      for (const kind of ['deploy', 'plain'] as const) {
        if (failures.length >= maxFailures) break sends;
        if (performance.now() > options.deadline) {
          cutShort = true;
          log(`sponsorship: time budget spent after ${samples.length} of ${options.ops} sponsored ops`);
          break sends;
        }
        await sleep(Math.random() * 1_000);
        try {
          const sample = await sponsoredOp(options, target, policy.id, account, kind);
          if (!sample.paymaster) throw new Error(`its receipt names no paymaster (block ${sample.block})`);
          if (index >= warmupAccounts) samples.push(sample);
        } catch (error) {
          failed(`sponsored ${kind} op from ${account.address}: ${(error as Error).message.split('\n')[0]}`);
          // A deploy that failed leaves nothing for its plain op.
          if (kind === 'deploy') break;
        }
      }
    }
  } finally {
    await heads.stop();
  }
  return {
    latency: { calls, sponsoredUsd, gas },
    ops: samples,
    arrivals: heads.arrivals,
    headPollErrors: heads.errors,
    failures,
    cutShort,
  };
}

/** The JSON-RPC method of a request body (none for a batch). */
function methodOf(body: unknown): string | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const parsed = JSON.parse(body) as { method?: unknown };
    return typeof parsed.method === 'string' ? parsed.method : undefined;
  } catch {
    return undefined;
  }
}

/** One op sent as a wallet sends it with viem and Blockyard as bundler and paymaster, its receipt awaited. */
async function sponsoredOp(
  options: SponsorshipOptions,
  target: BundlerTarget,
  policyId: string,
  account: BenchAccount,
  kind: OpKind,
): Promise<SponsoredOpSample> {
  const { client } = options;
  const took = new Map<string, number>();
  let headAtSend: bigint | undefined;
  let sendAt = 0;
  // viem's fetch, timed per method (the body read included); the head read just before the send is not timed.
  const fetchFn = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const method = methodOf(init?.body);
    if (method === 'eth_sendUserOperation') headAtSend = await client.getBlockNumber({ cacheTime: 0 });
    const from = performance.now();
    if (method === 'eth_sendUserOperation') sendAt = from;
    const response = await fetch(input, init);
    const body = await response.arrayBuffer();
    if (method) took.set(method, (took.get(method) ?? 0) + performance.now() - from);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  const transport = http(target.rpcUrl, {
    fetchOptions: { headers: target.headers },
    fetchFn,
    retryCount: 0,
    timeout: sendTimeoutMs,
  });
  const bundler = createBundlerClient({
    client,
    chain: foundry,
    transport,
    paymaster: createPaymasterClient({ transport }),
    paymasterContext: { policy_id: policyId },
    userOperation: { estimateFeesPerGas: () => opFees(client) },
  });
  if ((kind === 'deploy') !== !(await account.isDeployed()))
    throw new Error(`the account is ${kind === 'deploy' ? 'already' : 'not yet'} deployed`);

  const headAtCall = await client.getBlockNumber({ cacheTime: 0 });
  const callFrom = performance.now();
  const hash = await bundler.sendUserOperation({ account, calls: [{ to: options.recipient, value: 0n, data: '0x' }] });
  const callMs = performance.now() - callFrom;
  if (headAtSend === undefined) throw new Error('viem sent no eth_sendUserOperation request through its fetch');
  const receipt = await waitForReceipt(target, hash, {
    what: `sponsored ${kind} op`,
    from: sendAt,
    pollMs: options.receiptPollMs,
    timeoutMs: options.receiptTimeoutMs,
  });
  const receiptAt = performance.now();
  return {
    kind,
    sender: account.address,
    callMs,
    stubMs: took.get('pm_getPaymasterStubData') ?? Number.NaN,
    estimateMs: took.get('eth_estimateUserOperationGas') ?? Number.NaN,
    paymasterDataMs: took.get('pm_getPaymasterData') ?? Number.NaN,
    sendMs: took.get('eth_sendUserOperation') ?? Number.NaN,
    headAtCall,
    headAtSend,
    sendAt,
    receiptAt,
    block: hexToBigInt(receipt.receipt.blockNumber),
    paymaster: receipt.paymaster ?? null,
    success: receipt.success,
  };
}
