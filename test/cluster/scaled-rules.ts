import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { repoRoot } from './nodes.ts';
import { sh } from './shell.ts';

/**
 * The shipped rules' durations are minutes (an alert that fires on one bad scrape wakes people for
 * nothing), far longer than a fault of the cluster run. The run loads a copy of
 * deploy/prometheus/rules.yml made here in which every `for:` and every range-vector window (`[5m]`)
 * is divided by this factor, and nothing else changes: the same alerts, expressions, thresholds and
 * labels. With 1 s scrapes and evaluations, 1 min becomes 1 s and 5 min 5 s (a 5 s window still
 * holds five samples: enough for rate()).
 */
export const timeScale = 60;

interface RuleFile {
  groups: { name: string; rules: { alert?: string; expr: string; for?: string }[] }[];
}

const unitMs: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds of a Prometheus duration made of one or more parts ("1m", "1h30m"). */
export function durationMs(text: string): number {
  const parts = [...text.matchAll(/(\d+)(ms|s|m|h|d)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== text) throw new Error(`not a duration: ${text}`);
  return parts.reduce((sum, [, value, unit]) => sum + Number(value) * (unitMs[unit as string] as number), 0);
}

/** `text` divided by the factor, in whole milliseconds (Prometheus takes "500ms"). */
export function scaleDuration(text: string, factor = timeScale): string {
  const ms = Math.max(1, Math.round(durationMs(text) / factor));
  return ms % 1_000 === 0 ? `${ms / 1_000}s` : `${ms}ms`;
}

/** An expression with each range-vector window (`[5m]`, not a subquery's `[5m:1m]`) scaled. */
export function scaleWindows(expr: string, factor = timeScale): string {
  return expr.replace(/\[(\w+)\]/g, (_, window: string) => `[${scaleDuration(window, factor)}]`);
}

/** The scaled copy of `rules` (YAML text): only `for:` and range windows differ. */
export function scaleRules(rules: string, factor = timeScale): string {
  const file = parse(rules) as RuleFile;
  for (const group of file.groups)
    for (const rule of group.rules) {
      rule.expr = scaleWindows(rule.expr, factor);
      if (rule.for) rule.for = scaleDuration(rule.for, factor);
    }
  return `# Made by test/cluster/scaled-rules.ts from deploy/prometheus/rules.yml: for: and windows / ${factor}.\n${stringify(file)}`;
}

/** Writes the scaled rules into `dir` and has promtool check them; returns the file. */
export function writeScaledRules(dir: string): string {
  const file = join(dir, 'rules.scaled.yml');
  writeFileSync(file, scaleRules(readFileSync(join(repoRoot, 'deploy/prometheus/rules.yml'), 'utf8')));
  sh('promtool', ['check', 'rules', file]);
  return file;
}
