import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../support/cli.ts';
import { startTestService, type TestService } from '../support/service.ts';

describe('blockyard keys update | rotate | events', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t?.stop());

  const cli = (args: string[]) =>
    runCli(['keys', ...args, '--url', t.url, '--admin-token', t.adminToken], {
      env: cliEnv(),
      cwd: t.dataDir,
      timeoutMs: 60_000,
    });

  it('changes restrictions and limits, rotates with a grace, and lists the events', async () => {
    const { keyId } = await t.createKey();
    const updated = await cli([
      'update',
      keyId,
      '--restrictions',
      '{"origins":["https://App.example.com"],"methods":["eth_call"]}',
      '--limits',
      '{"rps":3}',
    ]);
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({
      restrictions: { origins: ['https://app.example.com'], methods: ['eth_call'] },
      limits: { rps: 3 },
    });
    const [rotated, badJson, badEntry] = await Promise.all([
      cli(['rotate', keyId, '--grace', '120']),
      cli(['update', keyId, '--restrictions', '{origins']),
      cli(['update', keyId, '--restrictions', '{"ips":["10.0.0.0/33"]}']),
    ]);
    expect(rotated.code, rotated.stderr).toBe(0);
    const answer = JSON.parse(rotated.stdout);
    expect(answer.key).toMatch(/^svc_test_/);
    expect(Date.parse(answer.previous_key_expires_at) - Date.now()).toBeGreaterThan(60_000);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toMatch(/--restrictions must be JSON/);
    expect(badEntry.code).toBe(1);
    expect(JSON.parse(badEntry.stderr).error.message).toMatch(/restrictions\.ips\[0\]/);

    const events = await cli(['events', keyId, '--limit', '2']);
    expect(events.code, events.stderr).toBe(0);
    const listed = JSON.parse(events.stdout);
    expect(listed.total).toBe(3);
    expect(listed.events.map((event: { action: string; actor: string }) => [event.action, event.actor])).toEqual([
      ['rotate', 'admin'],
      ['restrict', 'admin'],
    ]);
  }, 120_000);
});
