// The bundler benchmark's verdicts, per EntryPoint version (v0.7, v0.8): Blockyard with its rules off
// against Alto (the same work on both sides), Blockyard as it runs by default beside it; inclusion and
// gas accuracy for both.
import { type OpSample, type OpVersion, opVersions } from './bundler-ops.ts';
import { createLatencyRecorder } from './percentiles.ts';
import { fixed } from './table.ts';

export const targets = { accuracyMin: 0.9, accuracyMax: 1.0, blocksAfterHeadP95: 1 } as const;

/** Blockyard as `npm start` runs it: its bundler's ERC-7562 rules on. */
export const subject = 'blockyard';
/** Blockyard with bundler.safe_mode false: the like-for-like peer of Alto, which cannot run its rules on anvil. */
export const subjectRulesOff = 'blockyard-rules-off';
export const peer = 'alto';
/** Blockyard's send p50 with its rules off may be at most this much of Alto's (Alto runs without rules). */
export const sendRatioMax = 1.1;

export function percentile(values: readonly number[], p: number): number {
  const recorder = createLatencyRecorder(values.length + 1);
  for (const value of values) recorder.record(value);
  return recorder.percentile(p);
}

/** actualGasUsed over the limits the bundler estimated (what the sender is charged against what it must prefund). */
export const accuracyOf = (sample: OpSample) =>
  Number(sample.actualGasUsed) / Number(sample.preVerificationGas + sample.verificationGasLimit + sample.callGasLimit);

const ms = (values: number[], p: number) => fixed(percentile(values, p), 1);

/** One line per target and EntryPoint version: met or missed, with the numbers; `met` when every one is. */
export function bundlerVerdicts(samples: readonly OpSample[], bundlers: readonly string[]): { met: boolean; verdicts: string[] } {
  const verdicts: string[] = [];
  let met = true;
  const ours = [subjectRulesOff, subject].filter((bundler) => bundlers.includes(bundler));
  for (const version of opVersions) {
    const of = (bundler: string) => samples.filter((sample) => sample.bundler === bundler && sample.version === version);
    const theirs = of(peer);
    const ops = `all v${version} ops`;
    for (const bundler of ours) {
      const a = of(bundler).map((row) => row.estimateMs);
      const b = theirs.map((row) => row.estimateMs);
      const ok = theirs.length > 0 && percentile(a, 50) <= percentile(b, 50) && percentile(a, 95) <= percentile(b, 95);
      met &&= ok;
      verdicts.push(
        `${bundler}: eth_estimateUserOperationGas latency no worse than Alto's (p50 and p95, ${ops}): ${ok ? 'met' : 'missed'} ` +
          `(${ms(a, 50)} / ${ms(a, 95)} ms, alto ${ms(b, 50)} / ${ms(b, 95)} ms)`,
      );
    }
    for (const bundler of ours) {
      const a = of(bundler).map((row) => row.sendMs);
      const b = theirs.map((row) => row.sendMs);
      const ratio = percentile(a, 50) / percentile(b, 50);
      const figures = `${ms(a, 50)} / ${ms(a, 95)} ms p50 / p95, alto ${ms(b, 50)} / ${ms(b, 95)} ms: ${fixed(ratio, 2)}x at p50, ${fixed(percentile(a, 95) / percentile(b, 95), 2)}x at p95`;
      if (bundler === subjectRulesOff) {
        const ok = theirs.length > 0 && a.length > 0 && ratio <= sendRatioMax;
        met &&= ok;
        verdicts.push(
          `${bundler}: eth_sendUserOperation within ${Math.round((sendRatioMax - 1) * 100)}% of Alto's at p50, rules off on both (${ops}): ${ok ? 'met' : 'missed'} (${figures})`,
        );
      } else {
        verdicts.push(
          `${bundler}: eth_sendUserOperation with the ERC-7562 rules on (${ops}; reported, Alto cannot run its rules on anvil): ${figures}`,
        );
      }
    }
    for (const bundler of ours) verdicts.push(...inclusionAndAccuracy(of(bundler), bundler, version, (ok) => (met &&= ok)));
  }
  const failedOps = samples.filter((sample) => !sample.success).length;
  if (failedOps > 0) {
    met = false;
    verdicts.push(`${failedOps} op(s) were included with success false`);
  }
  return { met, verdicts };
}

function inclusionAndAccuracy(mine: OpSample[], bundler: string, version: OpVersion, record: (ok: boolean) => void): string[] {
  const lines: string[] = [];
  const after = mine.map((row) => Number(row.block - row.headAtSend));
  const receipts = mine.map((row) => row.receiptMs);
  const inclusionOk = mine.length > 0 && percentile(after, 95) <= targets.blocksAfterHeadP95;
  record(inclusionOk);
  lines.push(
    `${bundler}: send -> receipt within the next block (p95, all v${version} ops): ${inclusionOk ? 'met' : 'missed'} ` +
      `(${after.filter((value) => value <= 1).length} of ${after.length} in the next block, p95 ${fixed(percentile(after, 95), 0)} block(s) after the head; ` +
      `send -> receipt p50 / p95 ${ms(receipts, 50)} / ${ms(receipts, 95)} ms)`,
  );
  for (const kind of ['deploy', 'plain'] as const) {
    const ratios = mine.filter((row) => row.kind === kind).map(accuracyOf);
    const ok = ratios.length > 0 && Math.min(...ratios) >= targets.accuracyMin && Math.max(...ratios) <= targets.accuracyMax;
    record(ok);
    lines.push(
      `${bundler}: accuracy of v${version} ${kind} ops in ${targets.accuracyMin.toFixed(2)}-${targets.accuracyMax.toFixed(2)} (every op): ${ok ? 'met' : 'missed'} ` +
        `(min ${fixed(Math.min(...ratios), 3)}, p50 ${fixed(percentile(ratios, 50), 3)}, max ${fixed(Math.max(...ratios), 3)})`,
    );
  }
  return lines;
}
