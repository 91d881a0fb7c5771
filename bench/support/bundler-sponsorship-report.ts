// The sponsorship section of the bundler benchmark's report: the sponsor calls' latency beside the
// endpoints' floors, the sponsored ops' latency and inclusion, and issue 11's two targets.
import type { OpKind } from './bundler-ops.ts';
import { type SponsorCall, type SponsoredOpSample, type SponsorshipResult, sponsorCallNames } from './bundler-sponsorship.ts';
import { fixed } from './table.ts';
import { markdownTable, percentile } from './webhook-report.ts';

export const sponsorshipTargets = { sponsorCallP95Ms: 20, blocksAfterHeadP95: 1 } as const;

export interface SponsorshipReport {
  text: string;
  met: boolean;
  verdicts: string[];
}

const ms = (values: readonly number[], p: number) => fixed(percentile(values, p), 1);

export function formatSponsorshipReport(result: SponsorshipResult): SponsorshipReport {
  const { calls } = result.latency;
  const callTable = markdownTable(
    ['sponsorship calls (ms), one at a time', 'calls', 'p50', 'p95', 'max'],
    (Object.keys(sponsorCallNames) as SponsorCall[]).map((name) => [
      sponsorCallNames[name],
      String(calls[name].length),
      ms(calls[name], 50),
      ms(calls[name], 95),
      ms(calls[name], 100),
    ]),
  );

  const groups: { kind?: OpKind; label: string }[] = [
    { kind: 'deploy', label: 'sponsored deploy ops' },
    { kind: 'plain', label: 'sponsored plain ops' },
    { label: 'all sponsored ops' },
  ];
  const of = (kind?: OpKind) => result.ops.filter((op) => kind === undefined || op.kind === kind);
  const opTable = markdownTable(
    [
      'sponsored ops through viem (ms)',
      'ops',
      'sendUserOperation, whole p50',
      'p95',
      'pm stub p50',
      'estimate p50',
      'pm_getPaymasterData p50',
      'p95',
      'eth_sendUserOperation p50',
      'p95',
      'send -> receipt p50',
      'p95',
    ],
    groups.map(({ kind, label }) => {
      const rows = of(kind);
      const pick = (get: (op: SponsoredOpSample) => number) => rows.map(get).filter(Number.isFinite);
      const whole = pick((op) => op.callMs);
      const data = pick((op) => op.paymasterDataMs);
      const send = pick((op) => op.sendMs);
      const receipt = pick((op) => op.receiptAt - op.sendAt);
      return [
        label,
        String(rows.length),
        ms(whole, 50),
        ms(whole, 95),
        ms(
          pick((op) => op.stubMs),
          50,
        ),
        ms(
          pick((op) => op.estimateMs),
          50,
        ),
        ms(data, 50),
        ms(data, 95),
        ms(send, 50),
        ms(send, 95),
        ms(receipt, 50),
        ms(receipt, 95),
      ];
    }),
  );

  const left = (op: SponsoredOpSample) => {
    const next = result.arrivals.get(op.headAtSend + 1n);
    return next === undefined ? Number.NaN : next - op.sendAt;
  };
  const inclusionTable = markdownTable(
    [
      'inclusion (blocks after the head at eth_sendUserOperation)',
      'ops',
      'next block',
      '2nd block',
      'later',
      'p50',
      'p95',
      "after the head at viem's call: next block",
      'p95',
      'left to next block at send (ms): least that made it',
      'most that missed',
    ],
    groups.map(({ kind, label }) => {
      const rows = of(kind);
      const after = rows.map((op) => Number(op.block - op.headAtSend));
      const afterCall = rows.map((op) => Number(op.block - op.headAtCall));
      const made = rows
        .filter((op) => op.block - op.headAtSend <= 1n)
        .map(left)
        .filter(Number.isFinite);
      const missed = rows
        .filter((op) => op.block - op.headAtSend > 1n)
        .map(left)
        .filter(Number.isFinite);
      return [
        label,
        String(rows.length),
        String(after.filter((value) => value <= 1).length),
        String(after.filter((value) => value === 2).length),
        String(after.filter((value) => value > 2).length),
        fixed(percentile(after, 50), 0),
        fixed(percentile(after, 95), 0),
        String(afterCall.filter((value) => value <= 1).length),
        fixed(percentile(afterCall, 95), 0),
        made.length > 0 ? fixed(Math.min(...made), 0) : '-',
        missed.length > 0 ? fixed(Math.max(...missed), 0) : '-',
      ];
    }),
  );

  const verdicts: string[] = [];
  let met = true;
  const floor = `eth_chainId on the same endpoint p50 ${ms(calls.chainId, 50)} ms, GET policy p50 ${ms(calls.policy, 50)} ms`;
  for (const name of ['sponsor', 'paymasterData'] as const) {
    const values = calls[name];
    const ok = values.length > 0 && percentile(values, 95) <= sponsorshipTargets.sponsorCallP95Ms;
    met &&= ok;
    verdicts.push(
      `${sponsorCallNames[name]} latency p95 <= ${sponsorshipTargets.sponsorCallP95Ms} ms: ${ok ? 'met' : 'missed'} ` +
        `(p50 ${ms(values, 50)}, p95 ${ms(values, 95)} ms over ${values.length} calls; ${floor})`,
    );
  }
  const all = of();
  const after = all.map((op) => Number(op.block - op.headAtSend));
  const afterCall = all.map((op) => Number(op.block - op.headAtCall));
  const inclusionOk = all.length > 0 && percentile(after, 95) <= sponsorshipTargets.blocksAfterHeadP95;
  met &&= inclusionOk;
  verdicts.push(
    `sponsored send -> receipt within the next block (p95): ${inclusionOk ? 'met' : 'missed'} ` +
      `(${after.filter((value) => value <= 1).length} of ${after.length} in the next block, p95 ${fixed(percentile(after, 95), 0)} block(s) ` +
      `after the head at eth_sendUserOperation; after the head at viem's whole sendUserOperation: ` +
      `${afterCall.filter((value) => value <= 1).length} of ${afterCall.length}, p95 ${fixed(percentile(afterCall, 95), 0)}; ` +
      `send -> receipt p95 ${ms(
        all.map((op) => op.receiptAt - op.sendAt),
        95,
      )} ms)`,
  );
  const failedOps = all.filter((op) => !op.success).length;
  if (failedOps > 0) {
    met = false;
    verdicts.push(`${failedOps} sponsored op(s) were included with success false`);
  }
  return { text: [callTable, '', opTable, '', inclusionTable].join('\n'), met, verdicts };
}
