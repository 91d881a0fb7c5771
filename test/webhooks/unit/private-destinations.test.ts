import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ConfigError } from '../../../src/config/config-error.ts';
import { loadConfig } from '../../../src/config/load.ts';
import { isAddressRange, privateDestinations } from '../../../src/config/private-destinations.ts';
import { AppError } from '../../../src/core/errors.ts';
import { createDeliverySender } from '../../../src/webhooks/send-delivery.ts';
import { assertWebhookUrl } from '../../../src/webhooks/url-policy.ts';

const internal = privateDestinations(['10.231.0.0/24', 'fd00:abcd::/32']);

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).message;
  }
  throw new Error('accepted');
}

describe('webhooks.private_destinations', () => {
  it('parses CIDR ranges and single addresses, and nothing else', () => {
    for (const good of ['10.231.0.0/24', '10.1.2.3', 'fd00::/8', ' 10.0.0.0/8 ', '2001:DB8::/32'])
      expect(isAddressRange(good), good).toBe(true);
    for (const bad of ['10.0.0.0/33', '10.0.0/8', 'fd00::/129', 'intranet/8', '10.0.0.0/8/1', '10.0.0.0/x', '', '::1%eth0/128'])
      expect(isAddressRange(bad), bad).toBe(false);
  });

  it('allows addresses inside the ranges only (IPv4-mapped IPv6 included)', () => {
    expect(internal.allows('10.231.0.7')).toBe(true);
    expect(internal.allows('::ffff:10.231.0.7')).toBe(true);
    expect(internal.allows('fd00:abcd::1')).toBe(true);
    expect(internal.allows('10.231.1.7')).toBe(false);
    expect(internal.allows('10.0.0.1')).toBe(false);
    expect(internal.allows('fd00:abce::1')).toBe(false);
    expect(privateDestinations().allows('10.231.0.7')).toBe(false);
  });

  it('a webhook URL to an address inside them is accepted in production, over http too; others stay refused', () => {
    expect(assertWebhookUrl('http://10.231.0.7:9000/hook', 'production', 'url', internal)).toBe('http://10.231.0.7:9000/hook');
    expect(assertWebhookUrl('https://[fd00:abcd::5]/hook', 'production', 'url', internal)).toBe('https://[fd00:abcd::5]/hook');
    expect(refusal(() => assertWebhookUrl('http://10.231.0.7/hook', 'production'))).toContain('must be an https URL');
    expect(refusal(() => assertWebhookUrl('https://10.231.0.7/hook', 'production'))).toContain('private');
    expect(refusal(() => assertWebhookUrl('https://10.0.0.1/hook', 'production', 'url', internal))).toContain('private');
    expect(refusal(() => assertWebhookUrl('http://10.0.0.1/hook', 'production', 'url', internal))).toContain('https');
    // A name may resolve into the ranges: accepted (https in production), its addresses checked at delivery.
    expect(assertWebhookUrl('https://rx.internal/hook', 'production', 'url', internal)).toBe('https://rx.internal/hook');
    expect(refusal(() => assertWebhookUrl('https://rx.internal/hook', 'production'))).toContain('not a public name');
  });

  describe('the setting', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'blockyard-private-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const load = (webhooks: unknown) => {
      const file = join(dir, 'blockyard.yaml');
      writeFileSync(file, stringify({ webhooks }));
      return loadConfig({ flags: {}, env: { BLOCKYARD_CONFIG: file }, cwd: dir });
    };

    it('is empty by default and read from YAML', () => {
      expect(load({}).webhooks.privateDestinations).toEqual([]);
      expect(load({ private_destinations: ['10.231.0.0/24', ' fd00::/8'] }).webhooks.privateDestinations).toEqual([
        '10.231.0.0/24',
        'fd00::/8',
      ]);
    });

    it('names a range that is not a CIDR', () => {
      let error: unknown;
      try {
        load({ private_destinations: ['10.231.0.0/24', '10.231.0.0/40'] });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).setting).toBe('webhooks.private_destinations[1]');
      expect((error as Error).message).toContain('"10.231.0.0/40" is not a CIDR range');
      expect(() => load({ private_destinations: '10.0.0.0/8' })).toThrow(ConfigError);
    });
  });

  describe('delivery', () => {
    let server: Server;
    let port: number;
    beforeAll(async () => {
      server = createServer((request, response) => {
        request.resume();
        response.writeHead(200).end('fine');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('in production, a name resolving inside a listed range is delivered to; outside them it is refused after DNS', async () => {
      const allowed = createDeliverySender({
        mode: 'production',
        timeoutMs: 2000,
        privateDestinations: privateDestinations(['127.0.0.0/8']),
      });
      const refused = createDeliverySender({ mode: 'production', timeoutMs: 2000, privateDestinations: internal });
      try {
        expect(await allowed.send(`http://localhost:${port}/hook`, {}, '{}')).toMatchObject({ ok: true, status: 200 });
        const result = await refused.send(`http://localhost:${port}/hook`, {}, '{}');
        expect(result).toMatchObject({ ok: false, status: null });
        expect(result.error).toMatch(/loopback; webhooks go to public endpoints/);
      } finally {
        await allowed.close();
        await refused.close();
      }
    });
  });
});
