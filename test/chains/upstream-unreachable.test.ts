import { describe, expect, it } from 'vitest';
import { conditionsService, eventually, statusWithinMs, steps } from './conditions-service.ts';

/** The circuit breaker's default cooldown (src/chains/circuit-breaker.ts). */
const breakerCooldownMs = 5_000;

/**
 * A node that stops answering (SIGSTOP of a real anvil: connections accepted, nothing answered) while
 * idle: the head poll is what notices. /admin/chains says `unreachable` within 2 s, one warn line per
 * change, and it comes back after SIGCONT.
 */
describe('an upstream that stops answering, through the service', () => {
  const s = conditionsService();

  it('starts with every upstream verified and ok, each first check one info line', async () => {
    for (const name of ['own', 'provider', 'backup']) {
      await s.waitFor(name, 'ok', 5_000);
      const lines = s.changes(name, 0);
      expect(steps(lines)).toEqual(['verifying->ok']);
      expect(lines[0]).toMatchObject({ level: 30, network: 'ethereum/devnet', reason: null });
    }
    expect(await s.metric('blockyard_upstream_condition', { upstream: 'own', condition: 'ok' })).toBe(1);
  });

  it('a SIGSTOPped node is unreachable in /admin/chains within 2 s, one warn line; after SIGCONT it is back before the breaker cooldown ends, one line per change', async () => {
    const measured: number[] = [];
    for (let round = 0; round < 2; round++) {
      const from = s.log.lines.length;
      s.stopOwn();
      measured.push(await s.waitFor('own', 'unreachable', 10_000));
      const down = await s.upstream('own');
      expect(down.reason).toMatch(/timeout/);
      expect(down.healthy).toBe(false);
      s.continueOwn();
      // It answers what it was sent while stopped: alive, so its breaker closes without waiting out
      // the 5 s cooldown, and its identity is checked again at the next head poll.
      expect(await s.waitFor('own', 'ok', 15_000)).toBeLessThan(breakerCooldownMs);
      const lines = s.changes('own', from);
      expect(steps(lines)).toEqual(['ok->unreachable', 'unreachable->verifying', 'verifying->ok']);
      expect(lines.map((line) => [line.level, line.network])).toEqual(Array(3).fill([40, 'ethereum/devnet']));
      expect(lines[0]!.reason).toMatch(/timeout/);
    }
    console.log(`SIGSTOP -> unreachable in /admin/chains: ${measured.map((ms) => Math.round(ms)).join(', ')} ms`);
    for (const ms of measured) expect(ms).toBeLessThanOrEqual(statusWithinMs);
    expect(await s.metric('blockyard_upstream_condition_changes_total', { upstream: 'own', condition: 'unreachable' })).toBe(2);
    expect(await s.metric('blockyard_upstream_condition', { upstream: 'own', condition: 'unreachable' })).toBe(0);
    expect(await s.metric('blockyard_upstream_condition', { upstream: 'own', condition: 'ok' })).toBe(1);
  }, 40_000);

  it('stopped longer than the breaker cooldown: its first failed probe is a warn line, the probe cycles after it debug lines', async () => {
    const from = s.log.lines.length;
    s.stopOwn();
    await s.waitFor('own', 'unreachable', 5_000);
    // The breaker lets a probe through every 5 s; the stopped node answers neither the first nor the second.
    const debugSteps = () => steps(s.changes('own', from).filter((line) => line.level === 20));
    await eventually(() => (debugSteps().includes('recovering->unreachable') ? true : undefined), 15_000);
    s.continueOwn();
    await s.waitFor('own', 'ok', 10_000);
    const lines = s.changes('own', from);
    expect(steps(lines.filter((line) => line.level === 40))).toEqual([
      'ok->unreachable',
      'unreachable->recovering',
      'recovering->unreachable',
      'unreachable->verifying',
      'verifying->ok',
    ]);
    expect(steps(lines.filter((line) => line.level === 20))).toEqual(['unreachable->recovering', 'recovering->unreachable']);
    // This test's two probes let through: the previous test's node was back before any.
    expect(await s.metric('blockyard_upstream_condition_changes_total', { upstream: 'own', condition: 'recovering' })).toBe(2);
  }, 40_000);

  it('a killed node (connection refused) is unreachable in /admin/chains within 2 s, one warn line', async () => {
    const from = s.log.lines.length;
    process.kill(s.twins.b.pid, 'SIGKILL');
    const ms = await s.waitFor('own', 'unreachable', 10_000);
    console.log(`SIGKILL -> unreachable in /admin/chains: ${Math.round(ms)} ms`);
    expect(ms).toBeLessThanOrEqual(statusWithinMs);
    expect((await s.upstream('own')).reason).toBe('connection');
    const lines = s.changes('own', from);
    expect(steps(lines)).toEqual(['ok->unreachable']);
    expect(lines[0]).toMatchObject({ level: 40, reason: 'connection' });
  });
});
