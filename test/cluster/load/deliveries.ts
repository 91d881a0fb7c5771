import type { ChainTransfer } from './chain-scanner.ts';
import type { Verdict } from './contract.ts';
import type { Reception, WebhookInbox } from './receivers.ts';

/**
 * First attempts to one webhook are started in chain order but up to 16 may be in flight at once
 * (docs/webhooks.md "Order"), so two sent together may arrive swapped. An earlier event whose first
 * attempt arrives more than this after a later one's counts as out of order.
 */
const inFlightSlackMs = 1_000;

const logKeyOf = (transfer: ChainTransfer) => `${transfer.txHash}:${transfer.logIndex}`;

export interface DeliveryFindings {
  totals: Verdict['deliveries'];
  violations: string[];
}

/** Compares what the receivers got with the Transfer logs on chain (expected = logs x webhooks). */
export function checkDeliveries(transfers: readonly ChainTransfer[], inboxes: readonly WebhookInbox[]): DeliveryFindings {
  const expectedKeys = new Set(transfers.map(logKeyOf));
  const totals = { expected: transfers.length * inboxes.length, sent: 0, unique: 0, duplicates: 0, missing: 0, outOfOrder: 0 };
  const violations: string[] = [];
  if (transfers.length === 0) violations.push('deliveries: no matching transfer was mined (the load sent none?)');
  for (const inbox of inboxes) {
    const real = inbox.receptions.filter((reception) => !reception.test && !reception.removed);
    totals.sent += real.length;
    const accepted = new Map<string, number>();
    for (const reception of real) {
      if (reception.answered >= 300) continue;
      accepted.set(reception.logKey, (accepted.get(reception.logKey) ?? 0) + 1);
    }
    const uniqueIds = new Set(real.filter((reception) => reception.answered < 300).map((reception) => reception.eventId));
    totals.unique += uniqueIds.size;
    for (const count of accepted.values()) totals.duplicates += count - 1;
    const missing = [...expectedKeys].filter((key) => !accepted.has(key)).length;
    totals.missing += missing;
    const name = `webhook ${inbox.index + 1}`;
    if (missing > 0) violations.push(`${name}: ${missing} transfers missing`);
    const foreign = [...accepted.keys()].filter((key) => !expectedKeys.has(key)).length;
    if (foreign > 0) violations.push(`${name}: ${foreign} deliveries of transfers not on chain`);
    if (uniqueIds.size > accepted.size) {
      violations.push(`${name}: ${uniqueIds.size - accepted.size} transfers delivered under more than one event id`);
    }
    const outOfOrder = countOutOfOrder(real);
    totals.outOfOrder += outOfOrder;
    if (outOfOrder > 0) violations.push(`${name}: ${outOfOrder} first attempts out of chain order`);
    if (inbox.badSignatures > 0) violations.push(`${name}: ${inbox.badSignatures} deliveries with a bad signature`);
  }
  return { totals, violations };
}

/** First attempts (the first reception of each event id) whose chain position is behind one that arrived well before. */
export function countOutOfOrder(receptions: readonly Reception[]): number {
  const firsts: Reception[] = [];
  const seen = new Set<string>();
  for (const reception of receptions) {
    if (seen.has(reception.eventId)) continue;
    seen.add(reception.eventId);
    firsts.push(reception);
  }
  // Arrival order: a pointer walks the firsts that arrived more than the slack before the current one,
  // keeping the furthest chain position among them.
  let outOfOrder = 0;
  let furthest: Reception | undefined;
  let behind = 0;
  for (const reception of firsts) {
    while (behind < firsts.length && reception.at - firsts[behind]!.at > inFlightSlackMs) {
      const earlier = firsts[behind]!;
      if (!furthest || isAfter(earlier, furthest)) furthest = earlier;
      behind++;
    }
    if (furthest && isAfter(furthest, reception)) outOfOrder++;
  }
  return outOfOrder;
}

const isAfter = (a: Reception, b: Reception) => a.block > b.block || (a.block === b.block && a.logIndex > b.logIndex);

/**
 * Matching transfers mined at least `minAgeMs` ago (seen by the chain observer) that some webhook has
 * not accepted. A transfer whose first attempt a receiver refused on purpose (the 503s that exercise
 * retries) is owed only `refusedAllowanceMs` after that refusal: the service's retry schedule runs.
 */
export function undeliveredTransfers(
  transfers: readonly ChainTransfer[],
  inboxes: readonly WebhookInbox[],
  minAgeMs: number,
  options: { now?: number; refusedAllowanceMs?: number } = {},
): number {
  const now = options.now ?? Date.now();
  const allowance = options.refusedAllowanceMs ?? 0;
  const byInbox = inboxes.map((inbox) => {
    const accepted = new Set<string>();
    const refusedAt = new Map<string, number>();
    for (const reception of inbox.receptions) {
      if (reception.answered < 300) accepted.add(reception.logKey);
      else if (!refusedAt.has(reception.logKey)) refusedAt.set(reception.logKey, reception.at);
    }
    return { accepted, refusedAt };
  });
  const owed = (key: string, inbox: (typeof byInbox)[number]) => {
    if (inbox.accepted.has(key)) return false;
    const refused = inbox.refusedAt.get(key);
    return refused === undefined || now - refused >= allowance;
  };
  return transfers.filter((transfer) => {
    if (now - transfer.seenAt < minAgeMs) return false;
    const key = logKeyOf(transfer);
    return byInbox.some((inbox) => owed(key, inbox));
  }).length;
}
