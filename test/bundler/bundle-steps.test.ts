import type { UserOperation } from 'viem/account-abstraction';
import { describe, expect, it } from 'vitest';
import { createBundleClaims } from '../../src/bundler/bundle-claims.ts';
import { nextOfEachSender, queuedRunsInNonceOrder } from '../../src/bundler/nonce-runs.ts';
import { maxCostOf } from '../../src/bundler/op-max-cost.ts';
import { replacedOp } from '../../src/bundler/op-replacement.ts';
import type { QueuedOp } from '../../src/bundler/sender-queue.ts';
import type { UserOperationRow } from '../../src/db/tables/bundler.ts';

// The bundler's steps that need no chain: which ops a bundle takes, what a bundle holds, replacements.
const a = '0x00000000000000000000000000000000000000aa';
const b = '0x00000000000000000000000000000000000000bb';
const row = (hash: string, sender: string, nonce: bigint, fee = 10n) =>
  ({ hash, sender, nonce: nonce.toString(), max_fee_per_gas: fee.toString(), status: 'pending' }) as unknown as UserOperationRow;
const hashes = (rows: readonly UserOperationRow[]) => rows.map((r) => r.hash);

describe('which ops a bundle takes', () => {
  it("keeps each sender's consecutive nonces together, in nonce order, runs in the order they came", () => {
    const rows = [row('b1', b, 1n), row('a2', a, 2n), row('a0', a, 0n), row('b0', b, 0n), row('a1', a, 1n), row('b3', b, 3n)];
    expect(hashes(queuedRunsInNonceOrder(rows))).toEqual(['b0', 'b1', 'a0', 'a1', 'a2']);
  });

  it('stops a run at its first op that is not eligible; the later ones wait with it', () => {
    const rows = [row('a0', a, 0n), row('a1', a, 1n, 1n), row('a2', a, 2n), row('b0', b, 0n, 1n), row('b1', b, 1n)];
    expect(hashes(queuedRunsInNonceOrder(rows, (r) => BigInt(r.max_fee_per_gas) > 5n))).toEqual(['a0']);
  });

  it('treats each nonce key as its own queue', () => {
    const keyed = (n: bigint) => (1n << 64n) + n;
    const rows = [row('k1', a, keyed(1n)), row('a0', a, 0n), row('k0', a, keyed(0n))];
    expect(hashes(queuedRunsInNonceOrder(rows))).toEqual(['k0', 'k1', 'a0']);
    expect(hashes(nextOfEachSender(rows))).toEqual(['k0', 'a0']);
  });
});

describe('what the bundles of this process hold', () => {
  it('holds an op and its sender until released, counting each bundle of the sender', () => {
    const claims = createBundleClaims();
    const first = claims.claim([{ hash: 'a0', sender: a }]);
    const second = claims.claim([{ hash: 'a1', sender: a }]);
    expect(claims.holdsOp('a0')).toBe(true);
    expect(claims.holdsOpOrSender({ hash: 'a9', sender: a })).toBe(true);
    first();
    expect(claims.holdsOp('a0')).toBe(false);
    expect(claims.holdsOpOrSender({ hash: 'a9', sender: a })).toBe(true);
    second();
    expect(claims.holdsOpOrSender({ hash: 'a9', sender: a })).toBe(false);
  });
});

describe('a replacement', () => {
  const op = { sender: a, nonce: 1n, maxFeePerGas: 110n, maxPriorityFeePerGas: 11n } as unknown as UserOperation<'0.7'>;
  const queued = (status: QueuedOp['status'], fee = 100n, tip = 10n) =>
    [
      { hash: '0xq', nonce: '1', max_fee_per_gas: fee.toString(), max_priority_fee_per_gas: tip.toString(), status, op: {} },
    ] as QueuedOp[];

  it('replaces the queued op of the same nonce when both fees rise by 10%', () => {
    expect(replacedOp(op, '0xnew', queued('pending'))?.hash).toBe('0xq');
    expect(replacedOp({ ...op, nonce: 2n }, '0xnew', queued('pending'))).toBeUndefined();
    // In a bundle on its way too: the bundle is swapped (replace-in-flight.test.ts).
    expect(replacedOp(op, '0xnew', queued('submitted'))?.hash).toBe('0xq');
  });

  it('is refused when underpriced or the same op', () => {
    // 101 needs a fee of at least 112 (110% rounded up): the answer names it.
    expect(() => replacedOp(op, '0xnew', queued('pending', 101n))).toThrow(
      /^replacement underpriced: .* to at least 112 and 11 wei \(sent 110 and 11\)$/,
    );
    expect(() => replacedOp(op, '0xnew', queued('pending', 100n, 11n))).toThrow(/replacement underpriced/);
    expect(() => replacedOp(op, '0xq', queued('pending'))).toThrow(/already known/i);
  });
});

describe("a sponsor's cost", () => {
  it('counts a v0.6 paymaster postOp before the paymaster is signed in', () => {
    const op = {
      sender: a,
      nonce: 0n,
      callData: '0x',
      initCode: '0x',
      paymasterAndData: '0x',
      callGasLimit: 10n,
      verificationGasLimit: 100n,
      preVerificationGas: 1_000n,
      maxFeePerGas: 3n,
      maxPriorityFeePerGas: 1n,
      signature: '0x',
    } as UserOperation<'0.6'>;
    expect(maxCostOf(op, '0.6')).toBe((10n + 100n + 1_000n) * 3n);
    expect(maxCostOf(op, '0.6', true)).toBe((10n + 300n + 1_000n) * 3n);
  });
});
