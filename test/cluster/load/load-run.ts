import type { Hex } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { ChainClient } from './chain-client.ts';
import { ChainScanner } from './chain-scanner.ts';
import type { ClusterTargets, DrainReport, LoadHealth, LoadSettings, Verdict } from './contract.ts';
import { checkDeliveries, undeliveredTransfers } from './deliveries.ts';
import { PhaseRecorder } from './phase-stats.ts';
import { type RateProbe, startRateProbe } from './rate-probe.ts';
import { type Receivers, startReceivers } from './receivers.ts';
import { RecentResults } from './recent-results.ts';
import { startRequestLoad } from './request-load.ts';
import { createLoadAccounts, createTransferWebhooks, deployLoadToken } from './setup.ts';
import { sleep } from './timed-request.ts';
import { startTokenTransfers, type TokenTransfers } from './transfers.ts';
import { startUserOps, type UserOpLoad } from './user-ops.ts';
import { checkLimit, checkOps } from './verdict.ts';
import { type HeadSubscribers, startHeadSubscribers } from './ws-subscribers.ts';

export interface LoadOptions extends LoadSettings {
  /** Per webhook, the share of first attempts its receiver answers 503 (default: five, the last refusing 10%). */
  failFirstAttempts?: number[];
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

export interface LoadRun {
  /** What setup made: the webhooks (in receiver order) and the keys, for tests that break something on purpose. */
  readonly setup: { key: string; freeKey: string; token: Hex; webhookIds: string[] };
  /** Later stats count toward this phase. */
  phase(name: string): void;
  health(): LoadHealth;
  /** Stops making new transfers, ops and requests, then waits (bounded) until everything is delivered and landed. */
  drain(timeoutMs: number): Promise<DrainReport>;
  verdict(): Verdict;
  stop(): Promise<void>;
}

/** Matching transfers mined this long ago and not yet at every receiver count as undelivered. */
const deliveryGraceMs = 3_000;
/**
 * A first attempt refused on purpose is owed again after the service's first retry delay: 12 s covers
 * the default schedule's 10 s (+10% jitter), so health() does not flicker while retries run as designed.
 */
const refusedAllowanceMs = 12_000;

/** Everything one load run started, for the run's methods. */
interface LoadParts {
  chain: ChainClient;
  scanner: ChainScanner;
  receivers: Receivers;
  recorder: PhaseRecorder;
  recent: RecentResults;
  requests: { stop(): Promise<void> };
  ws: HeadSubscribers;
  transfers: TokenTransfers;
  ops: UserOpLoad;
  probe: RateProbe;
  plannedOps: number;
  log: (line: string) => void;
}

/**
 * Sets up (accounts and keys, a token, five webhooks with their receivers here, funded senders) and
 * starts the whole load against a running deployment, with the observers that judge it from outside:
 * the receivers and the chain. See test/cluster/load/contract.ts and docs/operations.md.
 */
export async function startLoad(targets: ClusterTargets, options: LoadOptions = {}): Promise<LoadRun> {
  const log = options.log ?? (() => undefined);
  const chain = new ChainClient(targets.chainRpcUrl);
  const chainId = Number(BigInt(await chain.call<string>('eth_chainId', [], 10_000)));
  const { key, freeKey } = await createLoadAccounts(targets);
  const token = await deployLoadToken(chain);
  log(`setup: token ${token.address} in block ${token.deployedIn}`);
  const receivers = await startReceivers(targets.bindHost, options.failFirstAttempts ?? [0, 0, 0, 0, 0.1]);
  const webhookIds = await createTransferWebhooks(targets, key, token.address, receivers);
  // Transfers start after every webhook exists: the expected ones are those of later blocks.
  const fromBlock = (await chain.blockNumber()) + 1n;
  const scanner = new ChainScanner(chain, token.address, entryPoint07Address, fromBlock);
  scanner.start();
  log(`setup: ${webhookIds.length} webhooks; observing the chain from block ${fromBlock}`);

  const recorder = new PhaseRecorder();
  const recent = new RecentResults();
  const requests = startRequestLoad(
    { targets, key, holder: token.minter.address, token: token.address, recorder, recent },
    options,
  );
  const ws = startHeadSubscribers({
    url: `${targets.lbUrl.replace(/^http/, 'ws')}/v1/ws/${targets.chain}/${targets.network}?apiKey=${key}`,
    count: options.wsSubscribers ?? 3,
    recorder,
    chainMovedAfter: (since) => scanner.firstMoveAfter(since),
  });
  const transfers = startTokenTransfers({
    chain,
    token: token.address,
    minter: token.minter,
    startNonce: Number(BigInt(await chain.call<string>('eth_getTransactionCount', [token.minter.address, 'pending']))),
    chainId,
    perSecond: options.transfersPerSecond ?? 2,
  });
  const ops = await startUserOps(
    {
      bundlerUrl: `${targets.lbUrl}/v1/bundler/${targets.chain}/${targets.network}`,
      key,
      chain,
      chainId,
      recorder,
      landed: (hash) => scanner.landed.has(hash),
    },
    options.ops,
  );
  const probe = startRateProbe({ targets, freeKey, phaseName: () => recorder.phaseName }, options.rateProbe);
  log('load running');
  const parts = { chain, scanner, receivers, recorder, recent, requests, ws, transfers, ops, probe, log };
  return runOf({ ...parts, plannedOps: options.ops?.count ?? 100 }, { key, freeKey, token: token.address, webhookIds });
}

function runOf(parts: LoadParts, setup: LoadRun['setup']): LoadRun {
  const { recorder, log } = parts;
  // A line every 10 s in the load's log: what a stuck run was doing.
  const progress = setInterval(() => log(progressLine(parts)), 10_000);
  let stopped = false;
  return {
    setup,
    phase(name) {
      recorder.begin(name);
      log(`phase ${name}`);
    },
    health: () => healthOf(parts),
    drain: (timeoutMs) => drain(parts, timeoutMs),
    verdict: () => verdictOf(parts),
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(progress);
      parts.transfers.stop();
      parts.ws.stop();
      await Promise.all([parts.requests.stop(), parts.probe.stop(), parts.ops.close()]);
      await parts.scanner.stop();
      await parts.receivers.close();
    },
  };
}

function healthOf(parts: LoadParts): LoadHealth {
  const { recent, ws, scanner, receivers } = parts;
  return {
    recentOk: recent.allOk(['json-rpc', 'rest']) && ws.allFresh(),
    undelivered: undeliveredTransfers(scanner.transfers, receivers.inboxes, deliveryGraceMs, { refusedAllowanceMs }),
    opsPending: opsNotLanded(parts),
  };
}

/** Accepted and not seen on chain. */
function opsNotLanded({ ops, scanner }: LoadParts): number {
  return [...ops.accepted].filter((hash) => !scanner.landed.has(hash)).length;
}

function progressLine(parts: LoadParts): string {
  const { transfers, scanner, ops, ws } = parts;
  const now = healthOf(parts);
  return (
    `${parts.recorder.phaseName}: transfers sent ${transfers.sent()} (retried ${transfers.retried()}), mined ${scanner.transfers.length}, ` +
    `undelivered ${now.undelivered}; ops accepted ${ops.accepted.size}, pending ${now.opsPending}, refused ${ops.refused()}, ` +
    `resent ${ops.resent()}; heads ${ws.headsReceived()}, reconnects ${ws.reconnects()}; recentOk ${now.recentOk}`
  );
}

/** Stops making new work, then waits until every transfer is mined and delivered and every accepted op landed. */
async function drain(parts: LoadParts, timeoutMs: number): Promise<DrainReport> {
  const { transfers, ops, chain, scanner, receivers } = parts;
  const started = Date.now();
  const deadline = started + timeoutMs;
  transfers.stop();
  ops.stop();
  await Promise.all([parts.requests.stop(), parts.probe.stop()]);
  let converged = false;
  while (!converged && Date.now() < deadline) {
    const settled = await transfers.settled();
    const head = await chain.blockNumber().catch(() => undefined);
    const scanned = head !== undefined && scanner.scannedTo >= head;
    const everyDelivery = undeliveredTransfers(scanner.transfers, receivers.inboxes, 0) === 0;
    converged = settled && scanned && everyDelivery && opsNotLanded(parts) === 0;
    if (!converged) await sleep(250);
  }
  const health = {
    ...healthOf(parts),
    undelivered: undeliveredTransfers(scanner.transfers, receivers.inboxes, 0),
    opsPending: opsNotLanded(parts),
  };
  const report = { seconds: (Date.now() - started) / 1000, converged, health };
  parts.log(`drained in ${report.seconds} s: converged ${converged}, ${JSON.stringify(report.health)}`);
  return report;
}

function verdictOf({ scanner, receivers, ops, probe, ws, recorder, plannedOps, log }: LoadParts): Verdict {
  const deliveries = checkDeliveries(scanner.transfers, receivers.inboxes);
  const opsFound = checkOps(ops, scanner.landed, scanner.revertedBundles.length, plannedOps);
  const limit = checkLimit(probe.acceptedByWindow, probe.limit() ?? 10, probe.badAnswers(), probe.unwindowed());
  const wsHeads = ws.headsReceived();
  for (const refusal of ops.refusals) log(`op refused: ${refusal}`);
  return {
    phases: recorder.all(),
    deliveries: deliveries.totals,
    ops: opsFound.totals,
    limit: limit.totals,
    ws: { subscribers: ws.subscribers, headsReceived: wsHeads, reconnects: ws.reconnects() },
    violations: [
      ...recorder.violations(),
      ...deliveries.violations,
      ...opsFound.violations,
      ...limit.violations,
      ...(wsHeads === 0 && ws.subscribers > 0 ? ['ws: no subscriber got a single newHeads'] : []),
    ],
  };
}
