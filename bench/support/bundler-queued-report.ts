// The queued-op section's report: throughput, send -> receipt and bundling per bundler, and what was
// refused (the count and the first message at each position of a sender's run of ops).

import type { QueuedResult } from './bundler-queued.ts';
import { fixed } from './table.ts';
import { markdownTable, percentile } from './webhook-report.ts';

export interface QueuedReport {
  text: string;
  /** Refusals and missing ops, one line each. */
  notes: string[];
  /** Every op of every bundler accepted and landed. */
  allLanded: boolean;
}

export function formatQueuedReport(results: readonly QueuedResult[]): QueuedReport {
  const notes: string[] = [];
  const rows = results.map((result) => {
    const landed = result.landings.length;
    const receiptMs = result.landings.map((landing) => landing.receiptMs);
    const perBundle = new Map<string, number>();
    for (const landing of result.landings) perBundle.set(landing.tx, (perBundle.get(landing.tx) ?? 0) + 1);
    const sizes = [...perBundle.values()];
    const refused = result.refusedByPosition.reduce((sum, position) => sum + position.count, 0);
    const blocks = result.landings.map((landing) => Number(landing.block));
    const blockSpan = blocks.length > 0 ? Math.max(...blocks) - Math.min(...blocks) + 1 : 0;
    for (const [position, { count, first }] of result.refusedByPosition.entries()) {
      if (count > 0) notes.push(`${result.bundler}: ${count} refused at nonce ${position}; first: ${first}`);
    }
    if (result.estimateFailures > 0)
      notes.push(`${result.bundler}: ${result.estimateFailures} estimates failed; first: ${result.firstEstimateFailure}`);
    if (result.accepted > landed)
      notes.push(`${result.bundler}: ${result.accepted - landed} accepted ops had no receipt in time`);
    const failed = result.landings.filter((landing) => !landing.success).length;
    if (failed > 0) notes.push(`${result.bundler}: ${failed} ops landed with success false`);
    return [
      result.bundler,
      String(result.senders * result.opsPerSender),
      String(result.accepted),
      String(refused + result.estimateFailures * result.opsPerSender),
      String(landed),
      fixed(result.spanMs / 1000, 1),
      fixed(landed / (result.spanMs / 1000), 1),
      fixed(percentile(receiptMs, 50), 0),
      fixed(percentile(receiptMs, 95), 0),
      String(sizes.length),
      sizes.length > 0 ? `${fixed(percentile(sizes, 50), 0)} / ${Math.max(...sizes)}` : '-',
      String(blockSpan),
      `${result.inNonceOrder} of ${result.senders}`,
    ];
  });
  const text = markdownTable(
    [
      'queued ops (senders x consecutive nonces, sent without waiting)',
      'ops',
      'accepted',
      'refused',
      'landed',
      'first send -> last receipt (s)',
      'ops/s landed',
      'send -> receipt p50 (ms)',
      'p95',
      'bundles',
      'ops per bundle p50 / max',
      'blocks',
      'senders all landed in nonce order',
    ],
    rows,
  );
  const allLanded = results.every(
    (result) => result.accepted === result.senders * result.opsPerSender && result.landings.length === result.accepted,
  );
  return { text, notes, allLanded };
}
