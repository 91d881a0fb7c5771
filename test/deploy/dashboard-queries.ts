import { readFileSync } from 'node:fs';
import type { LivePrometheus } from './live-prometheus.ts';

interface Panel {
  title: string;
  targets: { expr: string }[];
}

/** Every query of every panel of deploy/grafana/blockyard.json, with its panel's title. */
export function dashboardQueries(): { panel: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(new URL('../../deploy/grafana/blockyard.json', import.meta.url), 'utf8')) as {
    panels: Panel[];
  };
  return dashboard.panels.flatMap((panel) => panel.targets.map((target) => ({ panel: panel.title, expr: target.expr })));
}

/**
 * The queries (as "panel: expr") still without series after asking again every 500 ms for up to
 * `timeoutMs` (a rate needs two scrapes; a gauge appears with its first value).
 */
export async function queriesWithoutSeries(
  prometheus: LivePrometheus,
  queries: readonly { panel: string; expr: string }[],
  timeoutMs: number,
): Promise<string[]> {
  const empty = new Set(queries.map((query) => `${query.panel}: ${query.expr}`));
  const deadline = Date.now() + timeoutMs;
  while (empty.size > 0) {
    for (const { panel, expr } of queries) {
      const name = `${panel}: ${expr}`;
      if (empty.has(name) && (await prometheus.query(expr)).length > 0) empty.delete(name);
    }
    if (empty.size === 0 || Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return [...empty];
}
