import { toSimpleSmartAccount } from 'permissionless/accounts';
import { createPublicClient, type Hex, http, type PublicClient } from 'viem';
import { createBundlerClient, entryPoint07Address } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import type { ChainClient } from './chain-client.ts';
import type { PhaseRecorder } from './phase-stats.ts';
import { fundFromDevnet } from './setup.ts';
import { recordingFetch, sleep } from './timed-request.ts';
import { prepareSignedOp, type SignedOp, type SimpleAccount, sendUntilDecided } from './user-op-send.ts';

export interface UserOpsOptions {
  /** Operations in all (default 100). */
  count?: number;
  /** Senders (SimpleAccounts), each sending its ops one after another (default 20). */
  senders?: number;
  /** The ops are spread over this (default 5 minutes). */
  spreadMs?: number;
}

export interface UserOpLoad {
  /** userOpHashes the bundler accepted (an answer with the hash, or "already known"). */
  readonly accepted: Set<Hex>;
  /** Every hash ever sent, accepted or not (a refused op must not land twice either). */
  readonly attempted: Set<Hex>;
  refused(): number;
  /** The refusals' messages, first ones first (a few kept). */
  readonly refusals: string[];
  /** Sends with no answer (or a 429/5xx), sent again with the same op. */
  resent(): number;
  /** No new op is started; sends already made are still followed through. */
  stop(): void;
  /** Ends every sender loop at once (an op still unanswered or not landed is left as it is). */
  close(): Promise<void>;
}

/**
 * UserOperations from fresh SimpleAccounts (v0.7, funded from the devnet, no paymaster) through the
 * bundler URL on the load balancer, at a steady rate: one op per tick, taken by a free sender. A
 * sender sends its next op once the previous one landed (seen by the chain observer) or was refused;
 * a send that got no answer is sent again, the same signed op.
 */
export async function startUserOps(
  deps: {
    bundlerUrl: string;
    key: string;
    chain: ChainClient;
    chainId: number;
    recorder: PhaseRecorder;
    landed: (hash: Hex) => boolean;
  },
  options: UserOpsOptions = {},
): Promise<UserOpLoad> {
  const count = options.count ?? 100;
  const senderCount = Math.min(options.senders ?? 20, Math.max(count, 1));
  const interval = (options.spreadMs ?? 300_000) / Math.max(count, 1);
  const publicClient = createPublicClient({
    chain: foundry,
    transport: http(deps.chain.url, { timeout: 5_000 }),
  }) as PublicClient;
  const bundlerClient = createBundlerClient({
    client: publicClient,
    chain: foundry,
    transport: http(deps.bundlerUrl, {
      fetchOptions: { headers: { 'x-api-key': deps.key } },
      fetchFn: recordingFetch((outcome) => deps.recorder.record(outcome)),
      retryCount: 0,
      timeout: 6_000,
    }),
  });
  const accounts: SimpleAccount[] = await Promise.all(
    Array.from({ length: count === 0 ? 0 : senderCount }, () =>
      toSimpleSmartAccount({
        client: publicClient,
        owner: privateKeyToAccount(generatePrivateKey()),
        entryPoint: { address: entryPoint07Address, version: '0.7' },
        nonceKey: 0n,
      }),
    ),
  );
  await fundFromDevnet(deps.chain, await Promise.all(accounts.map((account) => account.getAddress())), 10n ** 18n);

  const accepted = new Set<Hex>();
  const attempted = new Set<Hex>();
  let refused = 0;
  const refusals: string[] = [];
  let resent = 0;
  let stopped = false;
  let closed = false;
  let tickets = 0;
  let started = 0;
  const ticketTimer = setInterval(() => {
    if (started + tickets < count) tickets++;
  }, interval);

  async function takeTicket(): Promise<boolean> {
    while (!stopped) {
      if (tickets > 0) {
        tickets--;
        started++;
        return true;
      }
      await sleep(50);
    }
    return false;
  }

  async function runSender(account: SimpleAccount): Promise<void> {
    while (await takeTicket()) {
      let prepared: SignedOp | undefined;
      while (!prepared && !stopped) {
        prepared = await prepareSignedOp({ publicClient, bundlerClient }, account, deps.chainId).catch(() => undefined);
        if (!prepared) await sleep(1_000);
      }
      if (!prepared) return;
      attempted.add(prepared.hash);
      const outcome = await sendUntilDecided(
        deps,
        prepared,
        () => closed,
        () => resent++,
      );
      if (outcome.kind === 'abandoned') return;
      if (outcome.kind === 'refused') {
        refused++;
        if (refusals.length < 20) refusals.push(outcome.message.slice(0, 200));
        continue;
      }
      accepted.add(prepared.hash);
      // The next op of this sender waits for this one on chain (its nonce follows).
      while (!deps.landed(prepared.hash) && !closed) await sleep(200);
    }
  }

  const loops = Promise.all(accounts.map((account) => runSender(account)));
  return {
    accepted,
    attempted,
    refused: () => refused,
    refusals,
    resent: () => resent,
    stop() {
      stopped = true;
      clearInterval(ticketTimer);
    },
    async close() {
      stopped = true;
      closed = true;
      clearInterval(ticketTimer);
      await loops;
    },
  };
}
