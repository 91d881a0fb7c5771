import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startSponsoredChain } from '../paymaster/support.ts';
import { promtool, skipWithout } from '../support/requirements.ts';
import { adminTokenForTests } from '../support/service.ts';

const dir = fileURLToPath(new URL('../../deploy/prometheus/', import.meta.url));
const rules = readFileSync(`${dir}rules.yml`, 'utf8');

/** The metric families the rules read (a histogram's `_bucket` is its family). */
function metricsRead(text: string): string[] {
  return [...new Set([...text.matchAll(/\bblockyard_[a-z_]+/g)].map((match) => match[0].replace(/_bucket$/, '')))].sort();
}

describe('the shipped Prometheus alert rules (deploy/prometheus/rules.yml)', () => {
  describe('checked by promtool', () => {
    skipWithout(promtool);

    it('are valid rules, and each alert fires on its fault and stays quiet otherwise (rules.test.yml)', () => {
      const check = spawnSync('promtool', ['check', 'rules', 'rules.yml'], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
      expect(check.status, check.stdout + check.stderr).toBe(0);
      const test = spawnSync('promtool', ['test', 'rules', 'rules.test.yml'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
      expect(test.status, test.stdout + test.stderr).toBe(0);
      expect(test.stdout).toContain('SUCCESS');
      // Every alert has a unit test.
      const alerts = [...rules.matchAll(/- alert: (\w+)/g)].map((match) => match[1]);
      const tested = new Set([...readFileSync(`${dir}rules.test.yml`, 'utf8').matchAll(/alertname: (\w+)/g)].map((m) => m[1]));
      expect(alerts.filter((alert) => !tested.has(alert))).toEqual([]);
    });
  });

  it('read only metrics a running node exports, with the labels they group by', async () => {
    // Indexer, bundler and verifying paymasters: every role whose metrics the rules read.
    const { chain: t } = await startSponsoredChain();
    try {
      await t.service.rpc((await t.service.createKey()).key, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
      // The labels the rules group or select by are the exported series' own.
      const grouped = [
        ['blockyard_http_requests_total', ['status', 'route', 'method']],
        ['blockyard_lease_held', ['role', 'network']],
        ['blockyard_upstream_condition', ['chain', 'network', 'upstream', 'condition']],
        ['blockyard_upstream_breaker_state', ['chain', 'network', 'upstream']],
        ['blockyard_indexer_head_block', ['network']],
        ['blockyard_paymaster_deposit_wei', ['network', 'paymaster']],
      ] as const;
      const sampleOf = (text: string, name: string) => text.split('\n').find((line) => line.startsWith(`${name}{`));
      // The bundler's gauges come with its loop and the indexer's with its first round, a moment after start.
      let text = '';
      const deadline = Date.now() + 15_000;
      do {
        const response = await fetch(`${t.service.url}/metrics`, {
          headers: { authorization: `Bearer ${adminTokenForTests}` },
          signal: AbortSignal.timeout(10_000),
        });
        text = await response.text();
        const complete =
          metricsRead(rules).every((name) => text.includes(`# TYPE ${name} `)) &&
          grouped.every(([name]) => sampleOf(text, name) !== undefined);
        if (complete) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      } while (Date.now() < deadline);
      const exported = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]));
      expect(metricsRead(rules).filter((name) => !exported.has(name))).toEqual([]);
      for (const [name, labels] of grouped) {
        const sample = sampleOf(text, name);
        expect(sample, name).toBeDefined();
        for (const label of labels) expect(sample, `${name} has ${label}`).toContain(`${label}="`);
      }
    } finally {
      await t.service.stop();
    }
  }, 60_000);
});
