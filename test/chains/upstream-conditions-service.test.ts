import { describe, expect, it } from 'vitest';
import { conditionsService, statusWithinMs, steps } from './conditions-service.ts';

/**
 * "Say what is wrong", end to end through the provider simulator: each change of an upstream's
 * condition (falling behind, answering 429, coming back as another chain, back to ok) is one log line
 * naming the upstream, the network, the conditions and the reason; /admin/chains shows it; metrics count it.
 */
describe('upstream conditions through the service: log lines, /admin/chains and metrics', () => {
  const s = conditionsService();

  it('/admin/chains shows each upstream with condition, reason, since, head, lag, tier, budget and logs range cap', async () => {
    await s.waitFor('provider', 'ok', 5_000);
    const status = await s.upstream('provider');
    expect(status).toMatchObject({
      url_host: new URL(s.provider.url).host,
      condition: 'ok',
      reason: null,
      tier: 'primary',
      lag: 0,
      head: 8,
      budget: { rps: 50, cu_per_s: null },
      logs_range_cap: 2_000,
    });
    expect(Date.parse(status.since)).toBeGreaterThan(0);
    expect((await s.upstream('backup')).tier).toBe('fallback');
    expect(JSON.stringify(s.log.lines)).not.toContain('secret-key');
  });

  it('a node that falls behind is lagging, one line, and back', async () => {
    const from = s.log.lines.length;
    s.provider.set({ lagBlocks: 5 });
    expect(await s.waitFor('provider', 'lagging', 5_000)).toBeLessThanOrEqual(statusWithinMs);
    const behind = await s.upstream('provider');
    expect(behind).toMatchObject({ lag: 5, reason: '5 blocks behind the best head (more than 3)', healthy: true });
    s.provider.set({ lagBlocks: 0 });
    await s.waitFor('provider', 'ok', 5_000);
    const lines = s.changes('provider', from);
    expect(steps(lines)).toEqual(['ok->lagging', 'lagging->ok']);
    expect(lines[0]).toMatchObject({ level: 40, reason: '5 blocks behind the best head (more than 3)' });
    expect(await s.metric('blockyard_upstream_condition_changes_total', { upstream: 'provider', condition: 'lagging' })).toBe(1);
  });

  it('a node that answers 429 is rate_limited (one line) while it keeps answering 429 after each pause, and back', async () => {
    const from = s.log.lines.length;
    const refusalsBefore = s.provider.refusedTimes.length;
    const setAt = performance.now();
    s.provider.set({ rateLimit: { rps: 0.01, style: 'http', retryAfterS: 1 } });
    const seenAt = setAt + (await s.waitFor('provider', 'rate_limited', 5_000));
    // The bucket starts full: the node's change is its first 429, not the set() (one head poll earlier).
    const firstRefusalAt = s.provider.refusedTimes[refusalsBefore]!;
    expect(seenAt - firstRefusalAt).toBeLessThanOrEqual(statusWithinMs);
    const limited = await s.upstream('provider');
    expect(limited.reason).toMatch(/429/);
    expect(limited.state).toBe('closed');
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    s.provider.set({ rateLimit: undefined });
    await s.waitFor('provider', 'ok', 8_000);
    const lines = s.changes('provider', from);
    expect(steps(lines)).toEqual(['ok->rate_limited', 'rate_limited->ok']);
    expect(lines[0]!.reason).toMatch(/429/);
    expect(await s.metric('blockyard_upstream_rate_limited_total', { upstream: 'provider' })).toBeGreaterThanOrEqual(2);
  }, 30_000);

  it('a node that comes back as another chain is wrong_chain with both ids (one line, counted), and ok once right again', async () => {
    s.provider.reset();
    await s.waitFor('provider', 'ok', 10_000);
    const from = s.log.lines.length;
    s.provider.set({ stall: true });
    await s.waitFor('provider', 'unreachable', 5_000);
    s.provider.set({ stall: false, chainId: 1 });
    await s.waitFor('provider', 'wrong_chain', 10_000);
    const wrong = await s.upstream('provider');
    expect(wrong.reason).toBe('eth_chainId answered 0x1 (1), expected 0x7a69 (31337)');
    expect(wrong.healthy).toBe(false);
    s.provider.set({ chainId: undefined });
    await s.waitFor('provider', 'ok', 5_000);
    const lines = s.changes('provider', from);
    // The calls it held are answered when the stall ends: its breaker closes then, and the identity check that follows finds the other chain.
    expect(steps(lines)).toEqual(['ok->unreachable', 'unreachable->verifying', 'verifying->wrong_chain', 'wrong_chain->ok']);
    expect(lines[2]).toMatchObject({ level: 40, reason: 'eth_chainId answered 0x1 (1), expected 0x7a69 (31337)' });
    expect(await s.metric('blockyard_upstream_identity_refusals_total', { upstream: 'provider' })).toBe(1);
    expect(await s.metric('blockyard_upstream_condition', { upstream: 'provider', condition: 'wrong_chain' })).toBe(0);
    expect(await s.metric('blockyard_upstream_condition_changes_total', { upstream: 'provider', condition: 'wrong_chain' })).toBe(
      1,
    );
  }, 30_000);
});
