import type { LagScenarioResult } from './scenario.ts';

/** The run as a table: each invariant with its count and what it was checked against, then what the run was. */
export function formatLagReport(result: LagScenarioResult): string {
  const rows = result.invariants.map((invariant) => [
    invariant.violations === 0 ? 'ok' : invariant.gating ? 'FAIL' : 'seen',
    String(invariant.violations),
    invariant.name,
    invariant.checked,
  ]);
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = ['', 'Invariants (count = violations)'];
  let area = '';
  result.invariants.forEach((invariant, index) => {
    if (invariant.area !== area) {
      area = invariant.area;
      lines.push('', `  ${area}`);
    }
    const row = rows[index]!;
    lines.push(`    ${row[0]!.padEnd(widths[0]!)}  ${row[1]!.padStart(widths[1]!)}  ${row[2]!.padEnd(widths[2]!)}  ${row[3]}`);
  });
  for (const invariant of result.invariants) {
    if (invariant.violations === 0 || invariant.samples.length === 0) continue;
    lines.push('', `  ${invariant.name}, for example:`, ...invariant.samples.map((text) => `    ${text}`));
  }
  lines.push('', 'The run', '');
  const factWidth = Math.max(...result.facts.map(([name]) => name.length));
  for (const [name, value] of result.facts) lines.push(`  ${name.padEnd(factWidth)}  ${value}`);
  lines.push(
    '',
    result.passed
      ? 'PASSED: no gating invariant broken ("seen" rows belong to other parts of the service and do not fail the run)'
      : 'FAILED',
    '',
  );
  return lines.join('\n');
}
