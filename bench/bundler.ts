// Bundler benchmark: Blockyard's ERC-4337 bundler side by side with Pimlico Alto on the same anvil.
// Blockyard runs as `npm start` runs it (build, defaults, a temp data dir, the embedded devnet mining a
// block a second with its bundler on, anvil #1-#3 as executors); Alto runs against that devnet's anvil
// with anvil #5 (executor) and #6 (utility). Each bundler gets the same ops: SimpleAccount v0.7 from
// permissionless `toSimpleSmartAccount` (nonce key 0), each a 1,000-wei transfer; a fresh account's
// first op deploys it ("deploy"), its second is a plain op ("plain"). Accounts are funded from anvil #7
// (Blockyard's) and #8 (Alto's). Ops run one at a time, alternating between the bundlers, each after a
// random 0-1 s pause so sends fall anywhere in the block interval. Measured per op:
// eth_estimateUserOperationGas and eth_sendUserOperation round trips, send -> first receipt from
// eth_getUserOperationReceipt, the receipt's block against anvil's head just before the send, and
// actualGasUsed / (preVerificationGas + verificationGasLimit + callGasLimit) as estimated.
// Then gas sponsorship on the same service (bench/support/bundler-sponsorship.ts): POST /v1/gas/sponsor
// and pm_getPaymasterData one call at a time beside the endpoint's floor, and sponsored ops of accounts
// with no ETH sent through viem's bundler client with Blockyard as its ERC-7677 paymaster.
// Run: npm run bench:bundler   (BENCH_BUNDLER_OPS, BENCH_BUNDLER_WARMUP, BENCH_BUNDLER_POLL_MS,
// BENCH_BUNDLER_SAFE_MODE=0: Blockyard's ERC-7562 checks off, as Alto runs; BENCH_BUNDLER_SPONSOR_CALLS,
// BENCH_BUNDLER_SPONSORED_OPS; BENCH_CPU_PROF=1)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  type Address,
  createPublicClient,
  createWalletClient,
  formatEther,
  type Hex,
  http,
  parseEther,
  type WalletClient,
} from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { stringify } from 'yaml';
import { devnetExecutorKeys } from '../src/bundler/executor-keys.ts';
import { type BlockyardService, startBlockyardService } from './support/blockyard-service.ts';
import { type AltoProcess, startAlto } from './support/bundler-alto.ts';
import { type GasSplit, gasSplit } from './support/bundler-gas-split.ts';
import { type HeadPoller, pollHeads } from './support/bundler-heads.ts';
import {
  type BenchAccount,
  type BundlerTarget,
  bundlerCall,
  fund,
  newAccount,
  type OpKind,
  type OpSample,
  runOp,
} from './support/bundler-ops.ts';
import { formatBundlerReport, peer, subject } from './support/bundler-report.ts';
import { bundleSentTimes, replaySend, type SendReplay } from './support/bundler-send-replay.ts';
import { readBundlerBenchSettings } from './support/bundler-settings.ts';
import { measureSponsorship, type SponsorshipResult, sponsorshipPolicyRules } from './support/bundler-sponsorship.ts';
import { formatSponsorshipReport } from './support/bundler-sponsorship-report.ts';
import { printProfile } from './support/print-profile.ts';
import { describeMachine, guardRun } from './support/run-guard.ts';
import { monotonicUs } from './support/webhook-protocol.ts';

/** Under bench/run.ts's 10-minute cap. */
const deadlineMs = 570_000;
/** Kept for stopping and printing once the measured rounds end. */
const reserveMs = 45_000;
/** Kept for the sponsorship section after the rounds (it takes about 45 s). */
const sponsorshipBudgetMs = 75_000;
const receiptTimeoutMs = 30_000;
/** Failed ops (an error answer, no receipt) allowed per bundler before the run stops. */
const maxFailures = 5;
const anvilMnemonic = 'test test test test test test test test test test test junk';
/** anvil's default accounts used here, by index: Alto's executor and utility, the two funders, the recipient. */
const keys = {
  altoExecutor: { index: 5, key: '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba' as Hex },
  // #6's key ends ...d6d6b8d88b2b4ec1564e (a key ending ...d6d4b8d16b1f4c1a2dce, quoted in places, is another, unfunded account).
  altoUtility: { index: 6, key: '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e' as Hex },
  blockyardFunder: { index: 7, key: '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356' as Hex },
  altoFunder: { index: 8, key: '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97' as Hex },
} as const;
const recipientIndex = 9;
const root = fileURLToPath(new URL('..', import.meta.url));

const settings = readBundlerBenchSettings();
const log = (line: string) => process.stderr.write(`[bench:bundler] ${line}\n`);
const startedAt = Date.now();

const workDir = mkdtempSync(join(tmpdir(), 'blockyard-bench-bundler-'));
let blockyard: BlockyardService | undefined;
let alto: AltoProcess | undefined;
let heads: HeadPoller | undefined;
const { cleanup, disarm } = guardRun({
  deadlineMs,
  log,
  async stop() {
    await heads?.stop();
    await Promise.allSettled([alto?.stop(), blockyard?.server.stop()]);
    rmSync(workDir, { recursive: true, force: true });
  },
});

/** The commit measured, and whether src/ differs from it (the build is made from the working tree). */
function describeSource(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', timeout: 10_000 }).trim();
  try {
    const changed = git('status', '--porcelain', '--', 'src').split('\n').filter(Boolean).length;
    return `source: commit ${git('rev-parse', '--short', 'HEAD')}${changed > 0 ? `, ${changed} file(s) under src/ changed since` : ''}`;
  } catch {
    return 'source: not a git checkout';
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-20).join('\n');
  } catch {
    return '(none)';
  }
}

try {
  console.log(describeMachine());
  console.log(describeSource());
  if (!settings.safeMode) {
    // The embedded devnet as by default, but with the bundler's ERC-7562 checks off (a settings file
    // in the data directory, which the service reads at start).
    mkdirSync(join(workDir, 'blockyard'), { recursive: true });
    writeFileSync(
      join(workDir, 'blockyard', 'blockyard.yaml'),
      stringify({ chains: [{ embedded: true, bundler: { safe_mode: false } }] }),
    );
  }
  blockyard = await startBlockyardService({ workDir, cpuProfile: settings.cpuProfile });
  const devnetUrl = blockyard.devnetUrl;
  if (!devnetUrl) throw new Error('the service printed no embedded devnet URL');
  const apiKey = readFileSync(join(workDir, 'blockyard', 'dev-api-key'), 'utf8').trim();
  log(`blockyard at ${blockyard.server.url}, devnet at ${devnetUrl}`);
  const client = createPublicClient({ chain: foundry, transport: http(devnetUrl), pollingInterval: 100 });

  // The keys given are anvil's accounts of those indexes, funded, and none of them is Blockyard's executor.
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

  const blockyardTarget: BundlerTarget = {
    name: subject,
    rpcUrl: `${blockyard.server.url}/v1/bundler/ethereum/devnet`,
    headers: { 'x-api-key': apiKey },
  };
  alto = await startAlto({
    anvilUrl: devnetUrl,
    entryPoint: entryPoint07Address,
    executorKey: keys.altoExecutor.key,
    utilityKey: keys.altoUtility.key,
    logFile: join(workDir, 'alto.log'),
    blockTimeMs: 1_000,
  });
  const altoTarget: BundlerTarget = { name: peer, rpcUrl: alto.rpcUrl, headers: {} };
  log(`alto ${alto.version} at ${alto.rpcUrl}`);
  for (const target of [blockyardTarget, altoTarget]) {
    const chainId = await bundlerCall<Hex>(target, 'eth_chainId', []);
    const entryPoints = await bundlerCall<Address[]>(target, 'eth_supportedEntryPoints', []);
    if (Number(chainId) !== foundry.id) throw new Error(`${target.name} answers chain id ${chainId}`);
    if (!entryPoints.some((address) => address.toLowerCase() === entryPoint07Address.toLowerCase()))
      throw new Error(`${target.name} does not support EntryPoint v0.7 (${entryPoints.join(', ')})`);
  }
  console.log(
    `settings: blockyard as npm start runs it (build, defaults, embedded devnet mining 1 block/s, bundler with anvil #1-#3` +
      `${settings.safeMode ? '' : ', but bundler.safe_mode false'}); ` +
      `alto ${alto.version} on the same anvil (--safe-mode false, executor #5, utility #6, /rpc, default multipliers); ` +
      `${settings.opsPerKind} deploy + ${settings.opsPerKind} plain SimpleAccount v0.7 ops per bundler after ` +
      `${settings.warmupAccounts} warm-up account(s); receipts polled every ${settings.receiptPollMs} ms`,
  );

  // Accounts: the first op of each deploys it, the second is a plain op.
  const targets = [blockyardTarget, altoTarget];
  const funders: Record<string, WalletClient> = {
    [subject]: createWalletClient({
      chain: foundry,
      transport: http(devnetUrl),
      account: privateKeyToAccount(keys.blockyardFunder.key),
    }),
    [peer]: createWalletClient({ chain: foundry, transport: http(devnetUrl), account: privateKeyToAccount(keys.altoFunder.key) }),
  };
  const accounts = new Map<string, BenchAccount[]>();
  for (const target of targets) {
    const list: BenchAccount[] = [];
    for (let index = 0; index < settings.warmupAccounts + settings.opsPerKind; index++) list.push(await newAccount(client));
    await fund(
      client,
      funders[target.name]!,
      list.map((account) => account.address),
    );
    accounts.set(target.name, list);
  }
  log(`funded ${settings.warmupAccounts + settings.opsPerKind} accounts per bundler`);

  // The floor under every call: eth_chainId (a constant answer) through each bundler's HTTP stack.
  const floor = new Map<string, number[]>(targets.map((target) => [target.name, []]));
  for (let index = 0; index < 30; index++) {
    for (const target of targets) {
      const from = performance.now();
      await bundlerCall(target, 'eth_chainId', []);
      floor.get(target.name)!.push(performance.now() - from);
    }
  }

  heads = pollHeads(devnetUrl);
  const measuredFromUs = monotonicUs();
  const samples: OpSample[] = [];
  const replays = new Map<string, SendReplay>();
  const failures: string[] = [];
  const failuresOf = (name: string) => failures.filter((line) => line.startsWith(`${name}:`)).length;
  let value = 1_000n;
  /** One op; a failure is recorded and the run goes on (a deploy that failed skips its account's plain op). */
  const one = async (target: BundlerTarget, account: BenchAccount, kind: OpKind, measured: boolean): Promise<boolean> => {
    await sleep(Math.random() * 1_000);
    try {
      const sample = await runOp({
        target,
        client,
        account,
        kind,
        recipient,
        value: value++,
        receiptPollMs: settings.receiptPollMs,
        receiptTimeoutMs,
      });
      if (measured) {
        samples.push(sample);
        // Blockyard's send path replayed call by call, like the send at a random point of a block
        // interval, with the same processes about (head poller, Alto idle between its ops).
        if (target.name === subject) {
          await sleep(Math.random() * 1_000);
          const replay = await replaySend(client, sample, settings.safeMode).catch((error: unknown) => {
            log(`no replay of ${sample.bundleTx}: ${(error as Error).message}`);
            return undefined;
          });
          if (replay) replays.set(sample.bundleTx, replay);
        }
      }
      return true;
    } catch (error) {
      failures.push(`${target.name}: ${kind} op from ${account.address}: ${(error as Error).message}`);
      log(`failed: ${failures.at(-1)}`);
      if (failuresOf(target.name) >= maxFailures) throw new Error(`${target.name}: ${maxFailures} ops failed; stopping`);
      return false;
    }
  };

  const deployed = new Set<string>();
  let rounds = 0;
  let cutShort = false;
  const total = settings.warmupAccounts + settings.opsPerKind;
  for (let round = 0; round < total; round++) {
    if (Date.now() - startedAt > deadlineMs - reserveMs - sponsorshipBudgetMs) {
      cutShort = true;
      log(`time budget spent after ${rounds} measured rounds: stopping the rounds`);
      break;
    }
    const measured = round >= settings.warmupAccounts;
    // Alternate which bundler goes first, so neither always follows the other's bundle.
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const kind of ['deploy', 'plain'] as const) {
      for (const target of order) {
        const account = accounts.get(target.name)![round]!;
        if (kind === 'plain' && !deployed.has(account.address)) continue;
        if ((await one(target, account, kind, measured)) && kind === 'deploy') deployed.add(account.address);
      }
    }
    if (measured) rounds++;
    if (round % 5 === 4) log(`round ${round + 1} of ${total} done (${samples.length} ops measured)`);
  }

  await heads.stop();
  const measuredToUs = monotonicUs();

  // Gas sponsorship, on the same service and devnet.
  log('sponsorship: sponsor calls, then sponsored ops');
  const sponsorshipFrom = performance.now();
  const sponsorship: SponsorshipResult | undefined = await measureSponsorship({
    baseUrl: blockyard.server.url,
    apiKey,
    anvilUrl: devnetUrl,
    client,
    recipient,
    calls: settings.sponsorCalls,
    ops: settings.sponsoredOps,
    receiptPollMs: settings.receiptPollMs,
    receiptTimeoutMs,
    deadline: Math.min(
      sponsorshipFrom + sponsorshipBudgetMs,
      sponsorshipFrom + deadlineMs - reserveMs / 2 - (Date.now() - startedAt),
    ),
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
    if (Date.now() - startedAt > deadlineMs - reserveMs / 3) break;
    const split = await gasSplit(devnetUrl, sample).catch((error: unknown) => {
      log(`no gas split for ${sample.bundleTx}: ${(error as Error).message}`);
      return undefined;
    });
    if (split) splits.set(sample.bundleTx, split);
  }
  const report = formatBundlerReport(samples, [subject, peer], {
    arrivals: heads.arrivals,
    splits,
    floor,
    replays,
    bundleSent: bundleSentTimes(blockyard.logFile),
  });
  console.log('');
  console.log(report.text);
  console.log('');
  console.log('```text');
  console.log(
    `accuracy = actualGasUsed (eth_getUserOperationReceipt) / (preVerificationGas + verificationGasLimit + callGasLimit) as estimated; ` +
      `bundle tx gasUsed - actualGasUsed above 0 means the bundle cost its executor more gas than the op was charged (one op per bundle)`,
  );
  console.log(
    `inclusion: the receipt's block minus anvil's eth_blockNumber just before eth_sendUserOperation (1 = the next block)`,
  );
  console.log(
    `timing: block arrivals from eth_blockNumber polled every 5 ms on anvil (${heads.errors} poll errors); ` +
      `"left to next block" = that block's arrival - the send's start; verification used = preOpGas (innerHandleOp's opInfo in the ` +
      `bundle's callTracer trace) - preVerificationGas; execution used = what the EntryPoint counted after validation, its 10% ` +
      `unused-gas penalty removed; account call frame = the account's execute call (${splits.size} of ${samples.length} bundles traced)`,
  );
  console.log(
    `measured rounds: ${rounds} of ${settings.opsPerKind}${cutShort ? ' (cut short by the time budget)' : ''}; failed ops: ${failures.length}`,
  );
  for (const line of failures) console.log(`  ${line}`);
  for (const line of report.verdicts) console.log(line);
  console.log('```');
  const sponsorshipReport = sponsorship ? formatSponsorshipReport(sponsorship) : undefined;
  if (sponsorship && sponsorshipReport) {
    console.log('');
    console.log(sponsorshipReport.text);
    console.log('');
    console.log('```text');
    console.log(
      `sponsorship: a gas policy of the dev key's account (rules ${JSON.stringify(sponsorshipPolicyRules)}), ETH at the devnet's ` +
        `price; sponsor calls: ${settings.sponsorCalls} iterations (after 5 unmeasured) of the five calls above, one at a time, ` +
        `each on a fresh counterfactual SimpleAccount v0.7 op (factory args, a 0-wei call, gas from one estimate with stub data: ` +
        `preVerificationGas ${sponsorship.latency.gas.preVerificationGas}, verificationGasLimit ` +
        `${sponsorship.latency.gas.verificationGasLimit}, callGasLimit ${sponsorship.latency.gas.callGasLimit}; reserved ` +
        `$${(sponsorship.latency.sponsoredUsd[0] ?? Number.NaN).toFixed(2)} each)`,
    );
    console.log(
      `sponsored ops: ${settings.sponsoredOps / 2} accounts with no ETH (after 1 unmeasured), each a deploy op then a plain op ` +
        `(a 0-wei call) sent by viem's bundler client with Blockyard as ERC-7677 paymaster, each after a random 0-1 s pause; ` +
        `"sendUserOperation, whole" = viem's call (nonce and fee reads, stub data, estimate, paymaster data, signing, the send); ` +
        `send -> receipt from the eth_sendUserOperation request; block arrivals polled every 5 ms (${sponsorship.headPollErrors} errors)`,
    );
    console.log(
      `sponsorship section: ${sponsorship.latency.calls.sponsor.length} sponsor calls, ${sponsorship.ops.length} of ` +
        `${settings.sponsoredOps} sponsored ops measured${sponsorship.cutShort ? ' (cut short by the time budget)' : ''}; ` +
        `it took ${sponsorshipS.toFixed(0)} s`,
    );
    for (const line of sponsorshipReport.verdicts) console.log(line);
  } else {
    console.log('');
    console.log('```text');
    console.log('sponsorship section: failed before measuring (see the failed ops above)');
  }
  console.log(
    `load average at the end: ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}; run took ${((Date.now() - startedAt) / 1000).toFixed(0)} s`,
  );
  console.log('```');
  if (!report.met || !sponsorshipReport?.met || sponsorship?.cutShort || failures.length > 0 || cutShort) process.exitCode = 1;
  if (blockyard.profileDir) {
    // The profile is written when the process exits.
    await blockyard.server.stop();
    printProfile(
      blockyard.profileDir,
      { fromUs: measuredFromUs, toUs: measuredToUs },
      log,
      'the measured ops (warm-up included)',
    );
  }
} catch (error) {
  log(`failed: ${(error as Error).message}`);
  for (const [name, file] of [
    ['blockyard', blockyard?.logFile],
    ['alto', alto?.logFile],
  ] as const) {
    if (file) log(`the end of ${name}'s log:\n${tail(file)}`);
  }
  process.exitCode = 1;
} finally {
  await cleanup();
  disarm();
}
