import { type Hex, parseEther } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryPointV07Abi } from '../../src/erc4337/contracts/abis.ts';
import { type BundlerChain, startBundlerChain } from './start-bundler.ts';
import {
  bundlerClientFor,
  bundlerUrlOf,
  fund,
  generousFees,
  newSimpleAccount,
  sendConsecutiveOps,
  waitForReceipts,
} from './support.ts';

const senders = 50;
const opsPerSender = 4;
/** Op i of a sender pays i + 1 wei: a recipient ends with 1 + 2 + 3 + 4 = 10 only if every op ran once. */
const values = Array.from({ length: opsPerSender }, (_, index) => BigInt(index + 1));

describe('the bundler under 50 senders with 4 queued ops each, sent at once', () => {
  let { chain, key, publicClient } = {} as BundlerChain;

  beforeAll(async () => {
    ({ chain, key, publicClient } = await startBundlerChain());
  }, 120_000);
  afterAll(async () => {
    await chain?.service.stop();
  });

  it('lands all 200 ops, each once, in bundles of several ops', async () => {
    const url = bundlerUrlOf(chain.service.url);
    const bundlerClient = bundlerClientFor(url, key, publicClient);
    const accounts = await Promise.all(Array.from({ length: senders }, () => newSimpleAccount(publicClient)));
    const recipients = accounts.map(() => privateKeyToAccount(generatePrivateKey()).address);
    await fund(
      chain.service.anvil.url,
      accounts.map((account) => account.address),
      parseEther('1'),
    );
    const fees = await generousFees(publicClient);

    const started = Date.now();
    // Senders in parallel, and each sender's 4 ops at once (none waits for another's answer), none awaited on chain.
    const hashes: Hex[] = (
      await Promise.all(
        accounts.map((account, index) =>
          sendConsecutiveOps(bundlerClient, account, recipients[index]!, values, fees, { atOnce: true }),
        ),
      )
    ).flat();
    const sentMs = Date.now() - started;
    expect(new Set(hashes).size).toBe(senders * opsPerSender);

    const receipts = await waitForReceipts(url, key, hashes, 90_000);
    const landedMs = Date.now() - started;
    const failed = [...receipts.values()].filter((receipt) => !receipt.success);
    expect(failed).toEqual([]);

    // Every op executed once: each recipient got exactly 1 + 2 + 3 + 4 wei.
    const balances = await Promise.all(recipients.map((address) => publicClient.getBalance({ address })));
    expect(balances).toEqual(recipients.map(() => 10n));
    // Each sender's ops landed in nonce order: their UserOperationEvents in chain order (block, then log).
    const events = await publicClient.getContractEvents({
      address: entryPoint07Address,
      abi: entryPointV07Abi,
      eventName: 'UserOperationEvent',
      fromBlock: 0n,
    });
    for (const [index, account] of accounts.entries()) {
      const own = hashes.slice(index * opsPerSender, (index + 1) * opsPerSender).map((hash) => receipts.get(hash)!);
      expect(own.map((receipt) => BigInt(receipt.nonce))).toEqual([0n, 1n, 2n, 3n]);
      expect(own.every((receipt) => receipt.sender.toLowerCase() === account.address.toLowerCase())).toBe(true);
      const landed = events.filter((event) => event.args.sender === account.address).map((event) => event.args.nonce);
      expect(landed).toEqual([0n, 1n, 2n, 3n]);
    }
    // A sender's consecutive queued ops may share a bundle.
    const sendersPerBundle = new Map<string, Set<string>>();
    for (const receipt of receipts.values()) {
      const senders = sendersPerBundle.get(receipt.receipt.transactionHash) ?? new Set();
      sendersPerBundle.set(receipt.receipt.transactionHash, senders.add(receipt.sender));
    }

    const perBundle = new Map<string, number>();
    for (const receipt of receipts.values()) {
      perBundle.set(receipt.receipt.transactionHash, (perBundle.get(receipt.receipt.transactionHash) ?? 0) + 1);
    }
    const sizes = [...perBundle.values()].sort((a, b) => b - a);
    console.info(
      `many-senders: ${hashes.length} ops sent in ${sentMs} ms, all landed after ${landedMs} ms ` +
        `(${((hashes.length * 1000) / landedMs).toFixed(1)} ops/s) in ${sizes.length} bundles; ops per bundle: ${sizes.join(', ')}`,
    );
    // Several ops per bundle: far fewer bundles than ops, and some bundle with several ops of one sender.
    expect(sizes.length).toBeLessThan(hashes.length / 4);
    expect(Math.max(...sizes)).toBeGreaterThan(1);
    expect([...perBundle.entries()].some(([tx, size]) => size > sendersPerBundle.get(tx)!.size)).toBe(true);
    expect(landedMs).toBeLessThan(60_000);
  }, 120_000);
});
