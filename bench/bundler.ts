// Bundler benchmark: Blockyard's ERC-4337 bundler side by side with Pimlico Alto on the same anvil, in one run.
// Three bundlers on one chain:
// - "blockyard": Blockyard as `npm start` runs it (build, defaults, a temp data dir, the embedded devnet
//   mining a block a second with its bundler on, ERC-7562 rules on (bundler.safe_mode), anvil #1-#3 as
//   executors);
// - "blockyard-rules-off": a second Blockyard, the same build and defaults in a data dir of its own, with
//   one chain entry on the first one's anvil, bundler.safe_mode false and anvil #4 as executor
//   (bench/support/bundler-rules-off.ts);
// - "alto": Alto against that anvil serving EntryPoint v0.7 and v0.8 (--entrypoints, both), with anvil
//   #5 (executor) and #6 (utility), --safe-mode false (the only way it runs on anvil, which lacks its JS
//   tracer).
// So like is compared with like (rules off on both: the send p50 must be within 10% of Alto's, for v0.7
// ops and for v0.8 ops) and ours with the rules on is reported beside it.
// Ops: SimpleAccounts from permissionless `toSimpleSmartAccount` (nonce key 0) on EntryPoint v0.7 and
// on v0.8 (the canonical SimpleAccountFactory v0.8), each op a 1,000-wei transfer sent to the account's
// own EntryPoint; a fresh account's first op deploys it ("deploy"), its second is a plain op ("plain").
// Accounts get their ETH by anvil_setBalance. Ops run one at a time, the bundlers taking turns (the
// first of each round rotating), each after a random 0-1 s pause so sends fall anywhere in the block
// interval (bench/support/bundler-rounds.ts). Measured per op: eth_estimateUserOperationGas and
// eth_sendUserOperation round trips, send -> first receipt from eth_getUserOperationReceipt, the
// receipt's block against anvil's head just before the send, and actualGasUsed / (preVerificationGas +
// verificationGasLimit + callGasLimit) as estimated. The tables and verdicts are per version.
// Then queued ops (bench/support/bundler-queued.ts, v0.7 only), one bundler at a time: 50 senders x 4
// consecutive nonces sent without waiting; ops/s landed and send -> receipt p50/p95; refusals are counted
// with their first message (a bundler that refuses a nonce behind a pending op says AA25 there), never fatal.
// Then gas sponsorship on the rules-on service (bench/support/bundler-sponsorship.ts, v0.7 only): POST
// /v1/gas/sponsor and pm_getPaymasterData one call at a time beside the endpoint's floor, and sponsored
// ops of accounts with no ETH sent through viem's bundler client with Blockyard as its ERC-7677 paymaster.
// Run: npm run bench:bundler   (BENCH_BUNDLER_OPS (15 per kind and version, was 30: with v0.8 beside v0.7
// a round holds twice the ops, about 16 s, and the rounds must end by 345 s for the queued and
// sponsorship sections to fit the 570 s deadline), BENCH_BUNDLER_WARMUP (2),
// BENCH_BUNDLER_POLL_MS, BENCH_BUNDLER_QUEUED_SENDERS (50), BENCH_BUNDLER_QUEUED_OPS (4),
// BENCH_BUNDLER_SPONSOR_CALLS, BENCH_BUNDLER_SPONSORED_OPS; BENCH_CPU_PROF=1 profiles both Blockyard processes)
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Address, createPublicClient, formatEther, type Hex, http, parseEther } from 'viem';
import { entryPoint07Address, entryPoint08Address } from 'viem/account-abstraction';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { devnetExecutorKeys } from '../src/bundler/executor-keys.ts';
import { createBenchKey } from './support/admin.ts';
import { type BlockyardService, startBlockyardService } from './support/blockyard-service.ts';
import { type AltoProcess, startAlto } from './support/bundler-alto.ts';
import { type GasSplit, gasSplit } from './support/bundler-gas-split.ts';
import { type HeadPoller, pollHeads } from './support/bundler-heads.ts';
import { opNotes, queuedNotes, sponsorshipNotes } from './support/bundler-notes.ts';
import { type BundlerTarget, bundlerCall } from './support/bundler-ops.ts';
import { measureQueued, type QueuedResult } from './support/bundler-queued.ts';
import { formatQueuedReport } from './support/bundler-queued-report.ts';
import { formatBundlerReport } from './support/bundler-report.ts';
import { measureFloor, prepareAccounts, runRounds } from './support/bundler-rounds.ts';
import { rulesOffExecutor, startRulesOffBlockyard } from './support/bundler-rules-off.ts';
import { bundleSentTimes } from './support/bundler-send-replay.ts';
import { readBundlerBenchSettings } from './support/bundler-settings.ts';
import { measureSponsorship, type SponsorshipResult } from './support/bundler-sponsorship.ts';
import { formatSponsorshipReport } from './support/bundler-sponsorship-report.ts';
import { peer, subject, subjectRulesOff } from './support/bundler-verdicts.ts';
import { printProfile } from './support/print-profile.ts';
import { describeMachine, describeSource, guardRun } from './support/run-guard.ts';
import { monotonicUs } from './support/webhook-protocol.ts';

/** Under bench/run.ts's 10-minute cap. */
const deadlineMs = 570_000;
/** Kept for stopping and printing once the measured rounds end. */
const reserveMs = 45_000;
/** Kept for the sponsorship section after the rounds (it takes about 45 s). */
const sponsorshipBudgetMs = 75_000;
/** The queued-op section's wait for receipts, per bundler (from its first send). */
const queuedTimeoutMs = 25_000;
/** Kept for the queued-op section (three bundlers: preparing, sending and landing 200 ops each). */
const queuedBudgetMs = 3 * (queuedTimeoutMs + 10_000);
const receiptTimeoutMs = 30_000;
/** Failed ops (an error answer, no receipt) allowed per bundler before the run stops. */
const maxFailures = 5;
const anvilMnemonic = 'test test test test test test test test test test test junk';
/** anvil's default accounts used here, by index: the rules-off Blockyard's executor, Alto's executor and utility. */
const keys = {
  rulesOffExecutor,
  altoExecutor: { index: 5, key: '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba' as Hex },
  // #6's key ends ...d6d6b8d88b2b4ec1564e (a key ending ...d6d4b8d16b1f4c1a2dce, quoted in places, is another, unfunded account).
  altoUtility: { index: 6, key: '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e' as Hex },
} as const;
const recipientIndex = 9;

const settings = readBundlerBenchSettings();
const startedAt = Date.now();
const elapsed = () => Date.now() - startedAt;
const log = (line: string) => process.stderr.write(`[bench:bundler ${(elapsed() / 1000).toFixed(0)} s] ${line}\n`);

const workDir = mkdtempSync(join(tmpdir(), 'blockyard-bench-bundler-'));
// As root the embedded Postgres of each service runs as another user, which must pass through it.
chmodSync(workDir, 0o711);
let blockyard: BlockyardService | undefined;
let rulesOff: BlockyardService | undefined;
let alto: AltoProcess | undefined;
let heads: HeadPoller | undefined;
const { cleanup, disarm } = guardRun({
  deadlineMs,
  log,
  async stop() {
    await heads?.stop();
    await Promise.allSettled([alto?.stop(), rulesOff?.server.stop()]);
    // Last: it runs the anvil the others use.
    await blockyard?.server.stop();
    rmSync(workDir, { recursive: true, force: true });
  },
});

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-20).join('\n');
  } catch {
    return '(none)';
  }
}

try {
  console.log(describeMachine());
  console.log(describeSource(new URL('..', import.meta.url)));
  blockyard = await startBlockyardService({ workDir: join(workDir, 'rules-on'), cpuProfile: settings.cpuProfile });
  const devnetUrl = blockyard.devnetUrl;
  if (!devnetUrl) throw new Error('the service printed no embedded devnet URL');
  log(`blockyard at ${blockyard.server.url}, devnet at ${devnetUrl}`);
  const client = createPublicClient({ chain: foundry, transport: http(devnetUrl), pollingInterval: 100 });

  // The keys given are anvil's accounts of those indexes, funded, and none of them is the first Blockyard's executor.
  const executorAddresses = new Set(devnetExecutorKeys.map((key) => privateKeyToAccount(key).address));
  for (const [role, { index, key }] of Object.entries(keys)) {
    const address = privateKeyToAccount(key).address;
    const expected = mnemonicToAccount(anvilMnemonic, { addressIndex: index }).address;
    if (address !== expected) throw new Error(`the ${role} key is not anvil's #${index} (${address}, expected ${expected})`);
    if (executorAddresses.has(address)) throw new Error(`the ${role} key (#${index}) is one of Blockyard's executors`);
    const balance = await client.getBalance({ address });
    if (balance < parseEther('10')) throw new Error(`anvil #${index} (${role}) holds only ${formatEther(balance)} ETH`);
    log(`${role}: anvil #${index} ${address}, ${formatEther(balance)} ETH`);
  }
  const recipient = mnemonicToAccount(anvilMnemonic, { addressIndex: recipientIndex }).address;

  rulesOff = await startRulesOffBlockyard({
    workDir: join(workDir, 'rules-off'),
    anvilUrl: devnetUrl,
    cpuProfile: settings.cpuProfile,
  });
  // Keys of enterprise accounts (no compute-unit limits): the queued burst is 300+ calls a second.
  const benchKey = await createBenchKey(blockyard.server.url, blockyard.adminToken);
  const rulesOffKey = await createBenchKey(rulesOff.server.url, rulesOff.adminToken);
  log(`blockyard with its rules off at ${rulesOff.server.url}`);
  alto = await startAlto({
    anvilUrl: devnetUrl,
    entryPoints: [entryPoint07Address, entryPoint08Address],
    executorKey: keys.altoExecutor.key,
    utilityKey: keys.altoUtility.key,
    logFile: join(workDir, 'alto.log'),
    blockTimeMs: 1_000,
  });
  log(`alto ${alto.version} at ${alto.rpcUrl}`);
  const targets: BundlerTarget[] = [
    { name: subject, rpcUrl: `${blockyard.server.url}/v1/bundler/ethereum/devnet`, headers: { 'x-api-key': benchKey } },
    { name: subjectRulesOff, rpcUrl: `${rulesOff.server.url}/v1/bundler/ethereum/devnet`, headers: { 'x-api-key': rulesOffKey } },
    { name: peer, rpcUrl: alto.rpcUrl, headers: {} },
  ];
  for (const target of targets) {
    const chainId = await bundlerCall<Hex>(target, 'eth_chainId', []);
    const entryPoints = await bundlerCall<Address[]>(target, 'eth_supportedEntryPoints', []);
    if (Number(chainId) !== foundry.id) throw new Error(`${target.name} answers chain id ${chainId}`);
    for (const [version, entryPoint] of [
      ['0.7', entryPoint07Address],
      ['0.8', entryPoint08Address],
    ] as const) {
      if (!entryPoints.some((address) => address.toLowerCase() === entryPoint.toLowerCase()))
        throw new Error(`${target.name} does not support EntryPoint v${version} (${entryPoints.join(', ')})`);
    }
  }
  console.log(
    `settings: ${subject} as npm start runs it (build, defaults, embedded devnet mining 1 block/s, bundler with anvil #1-#3, ` +
      `ERC-7562 rules on); ${subjectRulesOff}: the same build and defaults, its chain on that anvil, bundler.safe_mode false, ` +
      `executor anvil #4; alto ${alto.version} on the same anvil (--safe-mode false, --entrypoints v0.7,v0.8, executor #5, ` +
      `utility #6, /rpc, default multipliers); per bundler and EntryPoint version (v0.7, v0.8), ${settings.opsPerKind} deploy + ` +
      `${settings.opsPerKind} plain SimpleAccount ops after ${settings.warmupAccounts} warm-up account(s); receipts polled ` +
      `every ${settings.receiptPollMs} ms; queued ops and sponsorship: v0.7 only`,
  );

  // Accounts: the first op of each deploys it, the second is a plain op.
  const accounts = await prepareAccounts(targets, client, devnetUrl, settings.warmupAccounts + settings.opsPerKind);
  log(`funded ${settings.warmupAccounts + settings.opsPerKind} accounts of each version per bundler`);
  const floor = await measureFloor(targets);

  heads = pollHeads(devnetUrl);
  const measuredFromUs = monotonicUs();
  const { samples, replays, failures, rounds, cutShort } = await runRounds({
    targets,
    accounts,
    client,
    recipient,
    warmupAccounts: settings.warmupAccounts,
    opsPerKind: settings.opsPerKind,
    receiptPollMs: settings.receiptPollMs,
    receiptTimeoutMs,
    maxFailures,
    outOfTime: () => elapsed() > deadlineMs - reserveMs - sponsorshipBudgetMs - queuedBudgetMs,
    log,
  });

  await heads.stop();
  const measuredToUs = monotonicUs();

  // Queued ops, one bundler at a time (Alto first: ours may refuse what it has not learned yet).
  const queued: QueuedResult[] = [];
  for (const target of [targets[2]!, targets[1]!, targets[0]!]) {
    if (elapsed() > deadlineMs - reserveMs - sponsorshipBudgetMs - queuedTimeoutMs) {
      log(`no time left for queued ops on ${target.name}`);
      continue;
    }
    const result = await measureQueued({
      target,
      client,
      anvilUrl: devnetUrl,
      recipient,
      senders: settings.queuedSenders,
      opsPerSender: settings.queuedOpsPerSender,
      pollMs: settings.receiptPollMs * 5,
      timeoutMs: queuedTimeoutMs,
      log,
    }).catch((error: unknown) => {
      failures.push(`${target.name}: queued ops: ${(error as Error).message.split('\n')[0]}`);
      log(`failed: ${failures.at(-1)}`);
      return undefined;
    });
    if (result) queued.push(result);
  }

  // Gas sponsorship, on the rules-on service.
  log('sponsorship: sponsor calls, then sponsored ops');
  const sponsorshipFrom = performance.now();
  const sponsorship: SponsorshipResult | undefined = await measureSponsorship({
    baseUrl: blockyard.server.url,
    apiKey: benchKey,
    anvilUrl: devnetUrl,
    client,
    recipient,
    calls: settings.sponsorCalls,
    ops: settings.sponsoredOps,
    receiptPollMs: settings.receiptPollMs,
    receiptTimeoutMs,
    deadline: Math.min(sponsorshipFrom + sponsorshipBudgetMs, sponsorshipFrom + deadlineMs - reserveMs / 2 - elapsed()),
    log,
  }).catch((error: unknown) => {
    failures.push(`sponsorship: ${(error as Error).message.split('\n')[0]}`);
    log(`failed: ${failures.at(-1)}`);
    return undefined;
  });
  const sponsorshipS = (performance.now() - sponsorshipFrom) / 1000;
  if (sponsorship) failures.push(...sponsorship.failures);
  log(`sponsorship: done in ${sponsorshipS.toFixed(0)} s`);

  // Where the gas went, from each bundle's trace.
  const splits = new Map<string, GasSplit>();
  for (const sample of samples) {
    if (elapsed() > deadlineMs - reserveMs / 3) break;
    const split = await gasSplit(devnetUrl, sample).catch((error: unknown) => {
      log(`no gas split for ${sample.bundleTx}: ${(error as Error).message}`);
      return undefined;
    });
    if (split) splits.set(sample.bundleTx, split);
  }
  const report = formatBundlerReport(samples, [subject, subjectRulesOff, peer], {
    arrivals: heads.arrivals,
    splits,
    floor,
    replays,
    bundleSent: new Map([...bundleSentTimes(blockyard.logFile), ...bundleSentTimes(rulesOff.logFile)]),
  });
  const queuedReport = formatQueuedReport(queued);
  console.log('');
  console.log(report.text);
  console.log('');
  console.log(queuedReport.text);
  console.log('');
  console.log('```text');
  for (const line of opNotes({ headPollErrors: heads.errors, traced: splits.size, samples: samples.length })) console.log(line);
  for (const line of queuedNotes(settings, queuedTimeoutMs / 1000)) console.log(line);
  console.log(
    `measured rounds: ${rounds} of ${settings.opsPerKind}${cutShort ? ' (cut short by the time budget)' : ''}; failed ops: ${failures.length}`,
  );
  for (const line of failures) console.log(`  ${line}`);
  for (const line of report.verdicts) console.log(line);
  console.log(`queued ops: ${queuedReport.allLanded ? 'every op accepted and landed' : 'NOT every op accepted and landed'}`);
  for (const line of queuedReport.notes) console.log(`  ${line}`);
  console.log('```');
  const sponsorshipReport = sponsorship ? formatSponsorshipReport(sponsorship) : undefined;
  console.log('');
  if (sponsorship && sponsorshipReport) {
    console.log(sponsorshipReport.text);
    console.log('');
    console.log('```text');
    for (const line of sponsorshipNotes(settings, sponsorship, sponsorshipS)) console.log(line);
    for (const line of sponsorshipReport.verdicts) console.log(line);
  } else {
    console.log('```text');
    console.log('sponsorship section: failed before measuring (see the failed ops above)');
  }
  console.log(
    `load average at the end: ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}; run took ${(elapsed() / 1000).toFixed(0)} s`,
  );
  console.log('```');
  if (!report.met || !sponsorshipReport?.met || sponsorship?.cutShort || failures.length > 0 || cutShort) process.exitCode = 1;
  // The profiles are written when the processes exit (the rules-off one first: it uses the other's anvil).
  for (const service of [rulesOff, blockyard]) {
    if (!service.profileDir) continue;
    await service.server.stop();
    printProfile(
      service.profileDir,
      { fromUs: measuredFromUs, toUs: measuredToUs },
      log,
      `${service === blockyard ? subject : subjectRulesOff}: the measured ops (warm-up included)`,
    );
  }
} catch (error) {
  log(`failed: ${(error as Error).message}`);
  for (const [name, file] of [
    [subject, blockyard?.logFile],
    [subjectRulesOff, rulesOff?.logFile],
    [peer, alto?.logFile],
  ] as const) {
    if (file) log(`the end of ${name}'s log:\n${tail(file)}`);
  }
  process.exitCode = 1;
} finally {
  await cleanup();
  disarm();
}
