// axe-core in the real browser: the accessibility problems of the page as it is drawn (contrast needs
// the real layout and colours), for the tests to assert none serious or critical.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/**
 * The serious and critical violations axe finds on the page (or inside `scope`, a CSS selector), one
 * readable line per element: `color-contrast (serious) on .badge-warn: Elements must meet minimum ...`.
 */
export async function seriousAccessibilityProblems(page: Page, scope?: string): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP (script-src 'self') does not apply, and
  // the page logs no violation of it.
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(`${axeSource};0`);
  const violations = (await page.evaluate(
    `axe.run(${scope ? JSON.stringify(scope) : 'document'}, { resultTypes: ['violations'] }).then((result) => result.violations)`,
  )) as AxeViolation[];
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) =>
      violation.nodes.map(
        (node) =>
          `${violation.id} (${violation.impact}) on ${node.target.join(' ')}: ${violation.help}. ${(node.failureSummary ?? '').replace(/\s+/g, ' ')}`,
      ),
    );
}
