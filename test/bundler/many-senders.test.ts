import { createPublicClient, type Hex, http, type PublicClient, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';
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

describe('the bundler under 50 senders with 4 queued ops each', () => {
  let chain: IndexedChain;
  let key: string;
  let publicClient: PublicClient;

  beforeAll(async () => {
    chain = await startIndexedChain({
      settings: { bundler_keys: devnetExecutorKeys[0] },
      chainSettings: { bundler: { enabled: true } },
    });
    await installErc4337Contracts(chain.service.anvil.url);
    key = (await chain.service.createKey()).key;
    publicClient = createPublicClient({ chain: foundry, transport: http(chain.service.anvil.url) }) as PublicClient;
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
    // Senders in parallel; a sender's ops one after the other (each is queued before the next is sent), none awaited on chain.
    const hashes: Hex[] = (
      await Promise.all(
        accounts.map((account, index) => sendConsecutiveOps(bundlerClient, account, recipients[index]!, values, fees)),
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
    // Each sender's ops landed in nonce order, one per bundle (a bundle holds one op per sender).
    for (const [index, account] of accounts.entries()) {
      const own = hashes.slice(index * opsPerSender, (index + 1) * opsPerSender).map((hash) => receipts.get(hash)!);
      expect(own.map((receipt) => BigInt(receipt.nonce))).toEqual([0n, 1n, 2n, 3n]);
      expect(own.every((receipt) => receipt.sender.toLowerCase() === account.address.toLowerCase())).toBe(true);
      const blocks = own.map((receipt) => BigInt(receipt.receipt.blockNumber));
      expect(blocks).toEqual([...blocks].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      expect(new Set(own.map((receipt) => receipt.receipt.transactionHash)).size).toBe(opsPerSender);
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
    expect(sizes.length).toBeLessThan(hashes.length);
    // At least one op per sender per round: never fewer than 4 bundles, and most bundles should hold several ops.
    expect(sizes.length).toBeGreaterThanOrEqual(opsPerSender);
    expect(Math.max(...sizes)).toBeGreaterThan(1);
  }, 120_000);
});
