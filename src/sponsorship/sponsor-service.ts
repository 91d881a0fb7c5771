import type { Kysely } from 'kysely';
import type { Address, Hex, PublicClient } from 'viem';
import { userOperationHashOnChain } from '../bundler/eip7702-chain.ts';
import { checkCallSucceeds } from '../bundler/gas-estimation.ts';
import { BundlerRpcError, bundlerErrorCodes } from '../bundler/rpc-errors.ts';
import { revertReasonOf } from '../bundler/simulation.ts';
import {
  type AnyUserOperation,
  deploysSender,
  type EntryPointVersion,
  entitiesOf,
  estimationDefaults,
} from '../bundler/user-operation.ts';
import { networkKey } from '../chains/network-key.ts';
import { publicClientsByNetwork } from '../chains/public-client.ts';
import type { Network } from '../chains/registry.ts';
import type { GasSponsorshipConfig } from '../config/gas-settings.ts';
import { AppError, invalidRequest, notFound } from '../core/errors.ts';
import type { Tables } from '../db/tables.ts';
import { type L1FeeOracle, l1FeeOraclesByNetwork } from '../gas/l1-fee/l1-fee-oracle.ts';
import type { Plan } from '../limits/plans.ts';
import { paymasterDeposit } from '../paymaster/deposit.ts';
import {
  type SponsoredFields,
  sponsoredPaymasterFields,
  stubPaymasterFields,
  withPaymasterFields,
} from '../paymaster/paymaster-data.ts';
import { readPaymasterSenderNonce } from '../paymaster/paymaster-reads.ts';
import type { PaymasterSetup } from '../paymaster/paymaster-setup.ts';
import { accountCallsOf } from './call-targets.ts';
import { executionCallsOf } from './execution-trace.ts';
import { assertSponsorableCost } from './operation-bounds.ts';
import { operatorCapViolation, resolveSponsorshipCaps } from './operator-caps.ts';
import {
  type AdmissionFacts,
  admissionViolation,
  callRulesViolation,
  hasCallRules,
  policyViolation,
  type SponsorRules,
} from './policy-check.ts';
import type { PolicyRules } from './policy-rules.ts';
import { getPolicy } from './policy-store.ts';
import type { ExecutionCalls } from './reached-calls.ts';
import { entryPointFor, readSponsoredOperation } from './sponsored-operation.ts';
import { maxCostWei, withL1PreVerificationGas } from './sponsorship-cost.ts';
import { accountState, outstandingMaxCostWei, reserveSponsorship } from './sponsorship-store.ts';
import { usdString, weiToPicoUsd } from './usd.ts';

export interface SponsorRequest {
  readonly accountId: string;
  readonly policyId: string;
  /** The chain (and network) the caller names: they must be the policy's. */
  readonly chain?: string;
  readonly network?: string;
  readonly entryPoint?: string;
  readonly userOperation: unknown;
  /** Throws when the caller's key may not use the policy's network (a test key on a mainnet). */
  readonly authorize?: (network: Network) => void;
}

export type SponsorshipResult = SponsoredFields & {
  readonly sponsoredGasUsd: string;
  readonly validUntil: number;
  readonly userOpHash: Hex;
};

export interface SponsorDeps {
  readonly db: Kysely<Tables>;
  readonly networks: readonly Network[];
  /** The verifying paymaster of a network for an EntryPoint version, when the service runs one. */
  readonly paymasterOf: (network: Network, version: EntryPointVersion) => PaymasterSetup | undefined;
  readonly nativeUsdPrice: (network: Network) => Promise<string | null>;
  /** The operator's caps of each plan (`gas.sponsorship_caps`); an account's `limits` override them. */
  readonly sponsorshipCaps: GasSponsorshipConfig['sponsorshipCaps'];
}

/** A policy refusing an op: 403 with the rule and the figures. */
export const policyViolationError = (message: string) => new AppError('policy_violation', message);

/**
 * Gas sponsorship: checks an op against its policy, prices it at its most possible cost, reserves
 * that against the policy's caps and signs the verifying paymaster's data (POST /v1/gas/sponsor and
 * ERC-7677's pm_getPaymasterData); ERC-7677's stub data for estimation.
 */
export function createSponsorService(deps: SponsorDeps) {
  const clientOf = publicClientsByNetwork();
  const l1FeeOf = l1FeeOraclesByNetwork(clientOf);
  return {
    sponsor: (request: SponsorRequest) => sponsorOperation(deps, { clientOf, l1FeeOf }, request),
    stub: (request: SponsorRequest) => stubSponsorship(deps, clientOf, request),
  };
}

export type SponsorService = ReturnType<typeof createSponsorService>;

/** The sponsor's reads of each network: its node, and its L1 fee oracle (rollups). */
interface NetworkReads {
  readonly clientOf: (network: Network) => PublicClient;
  readonly l1FeeOf: (network: Network) => L1FeeOracle;
}

/** The active policy the request names, and the network it sponsors on (the caller's key allowed there). */
async function policyFor(deps: SponsorDeps, request: SponsorRequest) {
  const { accountId, policyId, chain, network: networkName } = request;
  if (!/^gp_[A-Za-z0-9_-]{1,64}$/.test(policyId)) throw invalidRequest('policy_id', 'must be a gas policy id (gp_…)');
  const policy = await getPolicy(deps.db, accountId, policyId);
  if (!policy) throw notFound(`gas policy ${policyId} not found`);
  if (chain !== undefined && chain !== policy.chain)
    throw invalidRequest('chain', `policy ${policyId} sponsors on ${policy.chain}, not ${chain}`);
  if (networkName !== undefined && networkName !== policy.network)
    throw invalidRequest('network', `policy ${policyId} sponsors on ${policy.chain}/${policy.network}, not ${networkName}`);
  if (policy.status !== 'active') throw policyViolationError(`the policy ${policyId} is ${policy.status}: it sponsors nothing`);
  const network = deps.networks.find(
    (candidate) => candidate.config.chain === policy.chain && candidate.config.network === policy.network,
  );
  if (!network)
    throw new AppError('service_unavailable', `${policy.chain}/${policy.network} is not served by this service any more`);
  request.authorize?.(network);
  return { policy, network };
}

async function sponsorOperation(
  deps: SponsorDeps,
  { clientOf, l1FeeOf }: NetworkReads,
  request: SponsorRequest,
): Promise<SponsorshipResult> {
  const { policy, network } = await policyFor(deps, request);
  const entryPoint = entryPointFor(network, request.entryPoint, request.userOperation);
  const setup = deps.paymasterOf(network, entryPoint.version);
  if (!setup)
    throw new AppError(
      'service_unavailable',
      `${policy.chain}/${policy.network} has no verifying paymaster for EntryPoint v${entryPoint.version} (gas.sponsor_key_file and the chain's erc4337 paymaster)`,
    );
  const op = readSponsoredOperation(entryPoint.version, request.userOperation, setup);
  const rules = sponsorRulesOf(policy.rules);
  const nowS = Math.floor(Date.now() / 1000);
  const admission = assertAdmitted(rules, op, nowS);
  const client = clientOf(network);
  const [price, deposit, outstanding, head] = await Promise.all([
    deps.nativeUsdPrice(network),
    paymasterDeposit(client, setup),
    outstandingMaxCostWei(deps.db, networkKey(network), entryPoint.address),
    client.getBlock({ blockTag: 'latest' }),
  ]);
  assertSponsorableCost(op, entryPoint.version, head.gasLimit);
  const priced = { op, version: entryPoint.version, entryPoint: entryPoint.address, chainId: network.config.chainId };
  const costWei = maxCostWei(
    await withL1PreVerificationGas(l1FeeOf(network), priced, head.baseFeePerGas ?? 0n),
    entryPoint.version,
  );
  if (price === null)
    throw new AppError(
      'service_unavailable',
      `no USD price for ${policy.chain}/${policy.network}'s native coin: add a tokens.prices entry with contract: native`,
    );
  await assertExecutionSucceeds(client, entryPoint.address, op);
  const execution = await assertCallRules(rules, () => executionCallsOf(network, client, entryPoint.address, op));
  const costUsdPico = weiToPicoUsd(costWei, price);
  const validUntil = nowS + policy.rules.sponsorship_expiry_s;
  const senderNonce = entryPoint.version === '0.6' ? await readPaymasterSenderNonce(client, setup, op.sender) : undefined;
  const fields = await sponsoredPaymasterFields({
    setup,
    chainId: network.config.chainId,
    op,
    validUntil,
    validAfter: 0,
    senderNonce,
  });
  const signedOp = withPaymasterFields(op, fields);
  const userOpHash = await userOperationHashOnChain(
    client,
    signedOp,
    entryPoint.version,
    entryPoint.address,
    network.config.chainId,
  );
  const outcome = await reserveSponsorship(
    deps.db,
    {
      policyId: policy.id,
      accountId: request.accountId,
      network: networkKey(network),
      entryPoint: entryPoint.address,
      sender: op.sender,
      userOpHash,
      maxCostWei: costWei,
      reservedUsdPico: costUsdPico,
      validUntil: new Date(validUntil * 1000),
    },
    (usage, account) =>
      refusalOf({
        policy: policyViolation(rules, { ...admission, costUsdPico, execution, usage }),
        operator: operatorCapViolation(capsOf(deps, network, account), account, costUsdPico),
        deposit,
        outstanding,
        costWei,
      }),
    rules.rateLimit?.perSeconds ?? 1,
  );
  if (!outcome.reserved) throw outcome.refusal;
  return { ...fields, sponsoredGasUsd: usdString(costUsdPico), validUntil, userOpHash };
}

// The embedded devnet's paymasters are funded from anvil's free ETH: nothing there to protect.
const capsOf = (deps: SponsorDeps, network: Network, account: { plan: Plan; limits: unknown }) =>
  network.config.embedded ? noCaps : resolveSponsorshipCaps(deps.sponsorshipCaps[account.plan], account.limits);

/**
 * ERC-7677 pm_getPaymasterStubData: the policy's rules that need no cost (time window, senders,
 * factory, and the contract and method rules on the traced execution) and the operator's caps as they
 * stand (a cap already used up), and the op's call (one that reverts is not sponsored), then data of
 * the real length that fails only the signature.
 */
async function stubSponsorship(
  deps: SponsorDeps,
  clientOf: (network: Network) => PublicClient,
  request: SponsorRequest,
): Promise<SponsoredFields> {
  const { policy, network } = await policyFor(deps, request);
  const entryPoint = entryPointFor(network, request.entryPoint, request.userOperation);
  const setup = deps.paymasterOf(network, entryPoint.version);
  if (!setup) throw new AppError('service_unavailable', `no verifying paymaster for EntryPoint v${entryPoint.version} here`);
  // Stub data comes before estimation: the gas fields may not be there yet.
  const op = readSponsoredOperation(entryPoint.version, request.userOperation, setup, estimationDefaults);
  const rules = sponsorRulesOf(policy.rules);
  assertAdmitted(rules, op, Math.floor(Date.now() / 1000));
  if (!network.config.embedded) {
    const account = await accountState(deps.db, request.accountId);
    // No cost is known yet: refuse only a cap with no room left (one pico-dollar).
    const violation = operatorCapViolation(capsOf(deps, network, account), account, 1n);
    if (violation) throw policyViolationError(violation);
  }
  const client = clientOf(network);
  await assertExecutionSucceeds(client, entryPoint.address, op);
  await assertCallRules(rules, () => executionCallsOf(network, client, entryPoint.address, op));
  return stubPaymasterFields(setup);
}

/** The rules that need no usage (time window, senders, factory, the callData's calls): a refusal is thrown (403). */
function assertAdmitted(rules: SponsorRules, op: AnyUserOperation, nowS: number): AdmissionFacts {
  const admission = {
    nowS,
    sender: op.sender,
    factory: deploysSender(op) ? entitiesOf(op).factory : null,
    calls: accountCallsOf(op.callData),
  };
  const violation = admissionViolation(rules, admission);
  if (violation) throw policyViolationError(violation);
  return admission;
}

/**
 * A policy that names contracts or methods checks them on every call the op's execution makes,
 * traced by the node (execution-trace.ts); a refusal, or a node that cannot trace, is thrown (403).
 * What was traced, for the final check; undefined for a policy without such rules (nothing traced).
 */
async function assertCallRules(rules: SponsorRules, trace: () => Promise<ExecutionCalls>): Promise<ExecutionCalls | undefined> {
  if (!hasCallRules(rules)) return undefined;
  const execution = await trace();
  const violation = callRulesViolation(rules, execution);
  if (violation) throw policyViolationError(violation);
  return execution;
}

/**
 * The op's execution simulated as the EntryPoint will make it: the bundler bundles an op whose call
 * reverts (its sender pays), but a sponsor would pay for nothing, so it is refused with the decoded
 * reason (400); over ERC-7677 the bundler's own -32521 (the cause) is answered.
 */
async function assertExecutionSucceeds(client: PublicClient, entryPoint: Address, op: AnyUserOperation): Promise<void> {
  try {
    await checkCallSucceeds(client, entryPoint, op, deploysSender(op));
  } catch (error) {
    if (error instanceof BundlerRpcError && error.code === bundlerErrorCodes.executionReverted) {
      const data = typeof error.data === 'string' ? (error.data as Hex) : undefined;
      const reason =
        data === undefined
          ? error.message
          : `UserOperation reverted during simulation with reason: ${revertReasonOf(data) ?? data}`;
      throw new AppError('invalid_request', `invalid parameter 'user_operation.callData': ${reason}`, { cause: error });
    }
    throw error;
  }
}

const noCaps = { usdPerDay: null, usdTotal: null } as const;

/**
 * Why a sponsorship is refused, if it is: the policy's and the operator's caps first (403), since a
 * refusal no funding would lift must not be a 503 to retry; then the deposit's shortfall (503).
 */
function refusalOf(facts: {
  policy: string | undefined;
  operator: string | undefined;
  deposit: bigint;
  outstanding: bigint;
  costWei: bigint;
}): AppError | undefined {
  const violation = facts.policy ?? facts.operator;
  if (violation) return policyViolationError(violation);
  if (facts.deposit < facts.outstanding + facts.costWei)
    return new AppError(
      'service_unavailable',
      `the paymaster's EntryPoint deposit (${facts.deposit} wei) cannot cover this op (up to ${facts.costWei} wei) beside the ${facts.outstanding} wei already reserved: fund the paymaster`,
    );
  return undefined;
}

/** The stored rules as the check reads them. */
export function sponsorRulesOf(rules: PolicyRules): SponsorRules {
  const seconds = (iso: string | undefined) => (iso === undefined ? undefined : Math.floor(Date.parse(iso) / 1000));
  return {
    maxGasUsd: rules.max_gas_usd,
    maxGasUsdPerOp: rules.max_gas_usd_per_op,
    maxGasUsdPerSender: rules.max_gas_usd_per_sender,
    maxOps: rules.max_ops,
    maxOpsPerSender: rules.max_ops_per_sender,
    maxPerUserPerDay: rules.max_per_user_per_day,
    allowedContracts: rules.allowed_contracts?.map((address) => address.toLowerCase()),
    allowedMethods: rules.allowed_methods?.map((method) => method.selector.toLowerCase()),
    allowedSenders: rules.allowed_senders?.map((address) => address.toLowerCase()),
    blockedSenders: rules.blocked_senders?.map((address) => address.toLowerCase()),
    allowedFactories: rules.allowed_factories?.map((address) => address.toLowerCase()),
    startTime: seconds(rules.start_time),
    endTime: seconds(rules.end_time),
    rateLimit: rules.rate_limit ? { ops: rules.rate_limit.ops, perSeconds: rules.rate_limit.per_seconds } : undefined,
  };
}
