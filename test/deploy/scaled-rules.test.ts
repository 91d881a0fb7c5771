import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { scaleDuration, scaleRules, scaleWindows } from '../cluster/scaled-rules.ts';

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: unknown;
  annotations?: unknown;
}
const rulesOf = (text: string) => (parse(text) as { groups: { rules: Rule[] }[] }).groups.flatMap((group) => group.rules);

/** The cluster run's copy of the alert rules (test/cluster/scaled-rules.ts) differs only in its durations. */
describe('the scaled alert rules of the cluster run', () => {
  const shipped = readFileSync(new URL('../../deploy/prometheus/rules.yml', import.meta.url), 'utf8');

  it('divides for: and range windows by 60, and nothing else', () => {
    expect(scaleDuration('1m')).toBe('1s');
    expect(scaleDuration('30s')).toBe('500ms');
    expect(scaleDuration('15m')).toBe('15s');
    expect(scaleWindows('rate(x[5m]) / changes(y[15m])')).toBe('rate(x[5s]) / changes(y[15s])');
    const original = rulesOf(shipped);
    const scaled = rulesOf(scaleRules(shipped));
    expect(scaled.map((rule) => rule.alert)).toEqual(original.map((rule) => rule.alert));
    for (const [index, rule] of scaled.entries()) {
      const before = original[index] as Rule;
      expect(rule.expr).toBe(scaleWindows(before.expr));
      expect(rule.for).toBe(before.for === undefined ? undefined : scaleDuration(before.for));
      expect([rule.labels, rule.annotations]).toEqual([before.labels, before.annotations]);
    }
  });
});
